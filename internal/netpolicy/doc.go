// Package netpolicy is the one address policy for upstream endpoints: which
// IP addresses a provider base URL may name and a provider call may dial.
// The same rules run when a base URL is stored (tenancy credentials, tenant
// providers, the operator's catalog file) and on every socket the upstream
// HTTP client opens (after name resolution, and for every redirect), so an
// address refused at creation cannot be reached by spelling it differently,
// resolving a name to it, or redirecting to it.
//
// Refused: loopback, private, link-local, CGNAT, benchmarking, reserved,
// broadcast, "this network", multicast, documentation and IETF protocol
// ranges, IPv6 site-local and unique-local, every IPv6 address outside
// global unicast (2000::/3), Teredo, and the IPv4-mapped, 6to4 and NAT64
// forms of a refused IPv4 address. IPv4 literals are read the way resolvers
// (inet_aton) read them (1 to 4 parts, decimal, octal or hex), and any form
// other than canonical dotted decimal is refused outright.
//
// Ring: kernel. Pure: no I/O, no name resolution, imports nothing of ours.
package netpolicy

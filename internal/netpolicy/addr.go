package netpolicy

import (
	"fmt"
	"net/netip"
)

type block struct {
	p    netip.Prefix
	what string
}

func blk(p, what string) block { return block{netip.MustParsePrefix(p), what} }

// refused4 lists every IPv4 range that is not public unicast.
var refused4 = []block{
	blk("0.0.0.0/8", "this network"),
	blk("10.0.0.0/8", "private"),
	blk("100.64.0.0/10", "carrier-grade NAT"),
	blk("127.0.0.0/8", "loopback"),
	blk("169.254.0.0/16", "link-local"),
	blk("172.16.0.0/12", "private"),
	blk("192.0.0.0/24", "IETF protocol assignments"),
	blk("192.0.2.0/24", "documentation"),
	blk("192.88.99.0/24", "6to4 relay anycast"),
	blk("192.168.0.0/16", "private"),
	blk("198.18.0.0/15", "benchmarking"),
	blk("198.51.100.0/24", "documentation"),
	blk("203.0.113.0/24", "documentation"),
	blk("224.0.0.0/4", "multicast"),
	blk("240.0.0.0/4", "reserved or broadcast"),
}

var (
	// global6 is IPv6 global unicast; everything outside it (loopback,
	// unspecified, IPv4-compatible, discard, unique-local, link-local,
	// site-local, multicast, local-use NAT64, SRv6 SIDs...) is refused, except
	// the two translation prefixes judged by the IPv4 address they embed.
	global6   = netip.MustParsePrefix("2000::/3")
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// refused6 lists the ranges inside global unicast that are refused.
var refused6 = []block{
	blk("2001::/23", "IETF protocol assignments (Teredo among them)"),
	blk("2001:db8::/32", "documentation"),
	blk("3fff::/20", "documentation"),
}

// Addr returns nil when a is a public unicast address an upstream may be
// reached at, else an error wrapping ErrRefused that names the range.
// IPv4-mapped, NAT64 (64:ff9b::/96) and 6to4 addresses are judged by the
// IPv4 address they embed; a zoned (scoped) address is always refused.
func Addr(a netip.Addr) error {
	switch {
	case !a.IsValid():
		return fmt.Errorf("%w: invalid address", ErrRefused)
	case a.Zone() != "":
		return refused(a, "scoped")
	case a.Is4In6():
		return embeds(a, a.Unmap())
	case a.Is4():
		for _, b := range refused4 {
			if b.p.Contains(a) {
				return refused(a, b.what)
			}
		}
		return nil
	case nat64.Contains(a):
		b := a.As16()
		return embeds(a, netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
	case !global6.Contains(a):
		return refused(a, "not IPv6 global unicast")
	case sixToFour.Contains(a):
		b := a.As16()
		return embeds(a, netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
	}
	for _, b := range refused6 {
		if b.p.Contains(a) {
			return refused(a, b.what)
		}
	}
	return nil
}

func refused(a netip.Addr, what string) error {
	return fmt.Errorf("%w: %s is %s", ErrRefused, a, what)
}

func embeds(a, v4 netip.Addr) error {
	for _, b := range refused4 {
		if b.p.Contains(v4) {
			return fmt.Errorf("%w: %s embeds %s (%s)", ErrRefused, a, v4, b.what)
		}
	}
	return nil
}

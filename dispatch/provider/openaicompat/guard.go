package openaicompat

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// blockedPrefixes are non-public ranges beyond what netip's predicates cover.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this" network
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
}

var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// Allowed reports whether a is a public unicast address a tenant-defined
// endpoint may be reached at.
func Allowed(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsUnspecified() || a.IsMulticast() ||
		a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range blockedPrefixes {
		if p.Contains(a) {
			return false
		}
	}
	// NAT64 addresses are judged by the IPv4 address they embed.
	if a.Is6() && nat64.Contains(a) {
		b := a.As16()
		return Allowed(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
	}
	return true
}

// checkHost refuses an IP-literal host that is not allowed, before any dial.
// Names are checked at dial time, on the address they resolve to.
func checkHost(host string) error {
	if host == "localhost" {
		return fmt.Errorf("%w: %s", ErrBlockedAddress, host)
	}
	if a, err := netip.ParseAddr(host); err == nil && !Allowed(a) {
		return fmt.Errorf("%w: %s", ErrBlockedAddress, a)
	}
	return nil
}

// control runs on every socket after name resolution, with the address
// actually being dialed.
func control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrBlockedAddress, address)
	}
	if !Allowed(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrBlockedAddress, ap.Addr())
	}
	return nil
}

// guardedTransport clones base (when it is an *http.Transport) with the
// address check in its dialer and no proxy.
func guardedTransport(base http.RoundTripper) *http.Transport {
	t, ok := base.(*http.Transport)
	if !ok || t == nil {
		t = http.DefaultTransport.(*http.Transport)
	}
	t = t.Clone()
	t.Proxy = nil
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: control}
	t.DialContext = d.DialContext
	t.DialTLSContext = nil
	return t
}

// GuardedClient returns a copy of hc whose transport refuses loopback,
// private, link-local and reserved addresses at dial time (and uses no
// proxy). The composition root gives it to every provider adapter when the
// operator does not allow private upstreams, so no credential's base URL can
// reach an internal address.
func GuardedClient(hc *http.Client) *http.Client {
	if hc == nil {
		hc = &http.Client{}
	}
	clone := *hc
	clone.Transport = guardedTransport(hc.Transport)
	return &clone
}

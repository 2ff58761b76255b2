package netpolicy

import (
	"fmt"
	"net/netip"
	"strings"
)

// localSuffixes are special-use names that only ever mean this host or the
// local network (RFC 6761, 6762, 8375; ICANN's private-use .internal).
var localSuffixes = []string{".localhost", ".local", ".internal", ".home.arpa"}

// Host checks the host of a base URL or redirect target, as url.URL.Hostname
// returns it (no port; brackets are tolerated). An IP literal must be
// spelled canonically (an IPv4 literal as dotted decimal without leading
// zeros, an IPv6 literal without a zone), or the error wraps
// ErrNonCanonical and ErrRefused whatever allowPrivate says. Unless
// allowPrivate, a literal must also pass Addr, and localhost and
// local-network names are refused. Other names pass: what they resolve to is
// checked with Addr when dialed.
func Host(host string, allowPrivate bool) error {
	h := strings.ToLower(host)
	if len(h) > 1 && h[0] == '[' && h[len(h)-1] == ']' {
		h = h[1 : len(h)-1]
	}
	if h == "" {
		return fmt.Errorf("%w: empty host", ErrRefused)
	}
	if strings.ContainsAny(h, ":%") {
		a, err := netip.ParseAddr(h)
		if err != nil || a.Zone() != "" || a.Is4() {
			return nonCanonical(host)
		}
		return judge(a, allowPrivate)
	}
	name := strings.TrimSuffix(h, ".")
	last := name[strings.LastIndexByte(name, '.')+1:]
	if last != "" && last[0] >= '0' && last[0] <= '9' {
		// A name whose last label starts with a digit is an IPv4 literal to
		// resolvers and browsers alike; no top-level domain does.
		a, ok := ParseIPv4(name)
		if !ok || h != a.String() {
			return nonCanonical(host)
		}
		return judge(a, allowPrivate)
	}
	if allowPrivate {
		return nil
	}
	if name == "localhost" {
		return fmt.Errorf("%w: %s is this host", ErrRefused, host)
	}
	for _, s := range localSuffixes {
		if strings.HasSuffix(name, s) {
			return fmt.Errorf("%w: %s is a local-network name", ErrRefused, host)
		}
	}
	return nil
}

func judge(a netip.Addr, allowPrivate bool) error {
	if allowPrivate {
		return nil
	}
	return Addr(a)
}

func nonCanonical(host string) error {
	if a, ok := ParseIPv4(strings.TrimSuffix(host, ".")); ok {
		return fmt.Errorf("%w: %w: %q reads as %s", ErrRefused, ErrNonCanonical, host, a)
	}
	return fmt.Errorf("%w: %w: %q", ErrRefused, ErrNonCanonical, host)
}

// ParseIPv4 reads s the way inet_aton does: one to four parts separated by
// dots, each decimal, octal (a leading 0) or hex (a leading 0x), the last
// part filling the remaining bytes ("127.1" is 127.0.0.1, "2130706433" is
// 127.0.0.1, "0x7f.1" too). It reports false when s is not such a literal.
func ParseIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, p := range parts {
		n, ok := parsePart(p)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 0xff {
				return netip.Addr{}, false
			}
			v = v<<8 | n
			continue
		}
		rest := uint(8 * (4 - i)) // bits the last part fills
		if n >= 1<<rest {
			return netip.Addr{}, false
		}
		v = v<<rest | n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// parsePart reads one part of an inet_aton literal, refusing values above
// 32 bits (no part of a valid literal is larger).
func parsePart(p string) (uint64, bool) {
	base := uint64(10)
	switch {
	case len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'):
		base, p = 16, p[2:]
		if p == "" {
			return 0, true // "0x" is zero to WHATWG URL parsers
		}
	case len(p) >= 2 && p[0] == '0':
		base, p = 8, p[1:]
	case p == "":
		return 0, false
	}
	var n uint64
	for i := 0; i < len(p); i++ {
		d, ok := digit(p[i])
		if !ok || d >= base {
			return 0, false
		}
		n = n*base + d
		if n > 0xffffffff {
			return 0, false
		}
	}
	return n, true
}

func digit(c byte) (uint64, bool) {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0'), true
	case c >= 'a' && c <= 'f':
		return uint64(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return uint64(c-'A') + 10, true
	}
	return 0, false
}

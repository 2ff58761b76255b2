package netpolicy

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
	"testing"
)

// FuzzHost checks the creation check against the dial check: a host Host
// allows is either a name that is not a literal or a canonical literal that
// Addr allows, and a literal's every spelling is judged by one address.
func FuzzHost(f *testing.F) {
	for _, s := range []string{"2130706433", "127.1", "0177.0.0.1", "0x7f000001", "0", "[::1]", "8.8.8.8",
		"api.openai.com", "64:ff9b::a9fe:a9fe", "2002:7f00:1::1", "localhost", "1.2.3.4.", "fe80::1%eth0", "0x.0x.0x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := Host(s, false)
		errAllow := Host(s, true)
		if s == "" || s == "[]" {
			if err == nil || errAllow == nil {
				t.Fatal("an empty host is allowed")
			}
			return
		}
		if errAllow != nil && !errors.Is(errAllow, ErrNonCanonical) {
			t.Fatalf("Host(%q, allowPrivate) = %v: only spelling is refused then", s, errAllow)
		}
		if errAllow != nil && err == nil {
			t.Fatalf("Host(%q) allowed what allowPrivate refused", s)
		}
		if err != nil && !errors.Is(err, ErrRefused) {
			t.Fatalf("Host(%q) = %v, not ErrRefused", s, err)
		}
		if a, ok := ParseIPv4(s); ok {
			canonical := a.String() == s
			if canonical != (errAllow == nil) {
				t.Fatalf("Host(%q, allowPrivate) = %v for a literal reading %s", s, errAllow, a)
			}
			if canonical && (err == nil) != (Addr(a) == nil) {
				t.Fatalf("Host(%q) = %v but Addr = %v", s, err, Addr(a))
			}
			if n, perr := strconv.ParseUint(s, 0, 32); perr == nil && !strings.Contains(s, ".") {
				if want := netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}); a != want {
					t.Fatalf("ParseIPv4(%q) = %s, strconv reads %s", s, a, want)
				}
			}
		}
		if a, perr := netip.ParseAddr(s); perr == nil && a.Zone() == "" {
			if (err == nil) != (Addr(a) == nil) {
				t.Fatalf("Host(%q) = %v but Addr = %v", s, err, Addr(a))
			}
		}
	})
}

// FuzzAddr checks that a refused IPv4 address is refused in every IPv6 form
// that embeds it.
func FuzzAddr(f *testing.F) {
	f.Add([]byte{127, 0, 0, 1})
	f.Add([]byte{8, 8, 8, 8})
	f.Add([]byte{169, 254, 169, 254})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 4 {
			return
		}
		v4 := netip.AddrFrom4([4]byte(b[:4]))
		want := Addr(v4) == nil
		forms := map[string]netip.Addr{
			"mapped": netip.AddrFrom16(v4.As16()),
			"nat64":  netip.AddrFrom16([16]byte{0, 0x64, 0xff, 0x9b, 12: b[0], b[1], b[2], b[3]}),
			"6to4":   netip.AddrFrom16([16]byte{0x20, 0x02, b[0], b[1], b[2], b[3], 15: 1}),
		}
		for name, a := range forms {
			if got := Addr(a) == nil; got != want {
				t.Fatalf("%s form %s of %s: allowed %v, the IPv4 address %v", name, a, v4, got, want)
			}
		}
		for _, a := range []netip.Addr{
			netip.AddrFrom16([16]byte{12: b[0], b[1], b[2], b[3]}),                            // IPv4-compatible
			netip.AddrFrom16([16]byte{0, 0x64, 0xff, 0x9b, 0, 1, 12: b[0], b[1], b[2], b[3]}), // local-use NAT64
			netip.AddrFrom16([16]byte{0x20, 0x01, 0, 0, b[0], b[1], b[2], b[3]}),              // Teredo
		} {
			if Addr(a) == nil {
				t.Fatalf("%s allowed", a)
			}
		}
	})
}

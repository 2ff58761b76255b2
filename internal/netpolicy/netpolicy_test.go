package netpolicy

import (
	"errors"
	"net/netip"
	"net/url"
	"testing"
)

// TestHostForms runs every base-URL host form of the outside probe through
// the creation check, as tenancy sees it (url.Parse, then Hostname).
func TestHostForms(t *testing.T) {
	tests := []struct {
		url          string
		ok           bool // allowed without AllowPrivate
		nonCanonical bool // refused even with AllowPrivate
	}{
		{"https://2130706433", false, true},
		{"https://127.1", false, true},
		{"https://0177.0.0.1", false, true},
		{"https://0x7f000001", false, true},
		{"https://0x7f.1", false, true},
		{"https://0", false, true},
		{"https://167772161", false, true},  // 10.0.0.1
		{"https://0xa9fea9fe", false, true}, // 169.254.169.254
		{"https://127.0.0.1.", false, true},
		{"https://08.8.8.8", false, true}, // not even a valid octal literal
		{"https://1.2.3.4.5", false, true},
		{"https://example.123", false, true},
		{"https://134744072", false, true}, // 8.8.8.8, spelled as one number
		{"https://[64:ff9b::a9fe:a9fe]", false, false},
		{"https://[64:ff9b:1::1]", false, false},
		{"https://198.18.0.1", false, false},
		{"https://240.0.0.1", false, false},
		{"https://255.255.255.255", false, false},
		{"https://0.0.0.0", false, false},
		{"https://100.64.0.1", false, false},
		{"https://192.0.2.1", false, false},
		{"https://224.0.0.1", false, false},
		{"https://[fec0::1]", false, false},
		{"https://[fc00::1]", false, false},
		{"https://[fe80::1]", false, false},
		{"https://[fe80::1%25eth0]", false, true},
		{"https://[::1]", false, false},
		{"https://[::]", false, false},
		{"https://[::127.0.0.1]", false, false},
		{"https://[::ffff:127.0.0.1]", false, false},
		{"https://[::ffff:169.254.169.254]", false, false},
		{"https://[2002:7f00:1::1]", false, false},
		{"https://[2002:a9fe:a9fe::]", false, false},
		{"https://[2001::1]", false, false},
		{"https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]", false, false},
		{"https://[2001:db8::1]", false, false},
		{"https://[ff02::1]", false, false},
		{"https://localhost", false, false},
		{"https://api.localhost", false, false},
		{"https://LOCALHOST.", false, false},
		{"https://printer.local", false, false},
		{"https://metadata.google.internal", false, false},
		{"https://8.8.8.8", true, false},
		{"https://[2606:4700::1111]", true, false},
		{"https://[64:ff9b::808:808]", true, false},
		{"https://[2002:808:808::1]", true, false},
		{"https://api.openai.com", true, false},
		{"https://api.openai.com.", true, false},
		{"https://openrouter.ai", true, false},
		{"https://1e100.net", true, false},
		{"https://api-2.example.com", true, false},
	}
	for _, tc := range tests {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		err = Host(u.Hostname(), false)
		if (err == nil) != tc.ok {
			t.Errorf("Host(%q) = %v, want allowed=%v", u.Hostname(), err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrRefused) {
			t.Errorf("Host(%q) = %v, not ErrRefused", u.Hostname(), err)
		}
		if got := errors.Is(err, ErrNonCanonical); got != tc.nonCanonical {
			t.Errorf("Host(%q) = %v, non-canonical %v, want %v", u.Hostname(), err, got, tc.nonCanonical)
		}
		errAllow := Host(u.Hostname(), true)
		if (errAllow != nil) != tc.nonCanonical {
			t.Errorf("Host(%q, allowPrivate) = %v, want refused=%v", u.Hostname(), errAllow, tc.nonCanonical)
		}
	}
}

// TestAddr is the dial-time table: what a resolved address may be.
func TestAddr(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"8.8.8.8", true},
		{"1.1.1.1", true},
		{"2606:4700:4700::1111", true},
		{"2606:4700::1111", true},
		{"2a00:1450:4001:80b::200e", true},
		{"64:ff9b::808:808", true}, // NAT64 of a public address
		{"::ffff:8.8.8.8", true},   // mapped public address
		{"2002:808:808::1", true},  // 6to4 of a public address
		{"127.0.0.1", false},
		{"127.255.255.254", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"192.168.1.1", false},
		{"169.254.169.254", false},
		{"100.64.0.1", false},
		{"100.127.255.255", false},
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"255.255.255.255", false},
		{"240.0.0.1", false},
		{"224.0.0.1", false},
		{"239.255.255.250", false},
		{"198.18.0.1", false},
		{"198.19.255.255", false},
		{"192.0.0.8", false},
		{"192.0.2.1", false},
		{"198.51.100.7", false},
		{"203.0.113.9", false},
		{"192.88.99.1", false},
		{"::1", false},
		{"::", false},
		{"::127.0.0.1", false},
		{"::8.8.8.8", false}, // IPv4-compatible: deprecated, never routed
		{"fe80::1", false},
		{"fe80::1%eth0", false},
		{"fec0::1", false},
		{"feff::1", false},
		{"fc00::1", false},
		{"fd12:3456::1", false},
		{"ff02::1", false},
		{"100::1", false},
		{"5f00::1", false},
		{"::ffff:10.0.0.1", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:0:127.0.0.1", false},
		{"64:ff9b::a00:1", false}, // NAT64 of 10.0.0.1
		{"64:ff9b::a9fe:a9fe", false},
		{"64:ff9b::7f00:1", false},
		{"64:ff9b:1::8.8.8.8", false},
		{"2002:7f00:1::1", false}, // 6to4 of loopback
		{"2002:a00:1::", false},
		{"2002:c0a8:101::1", false},
		{"2001::1", false},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false}, // Teredo
		{"2001:db8::1", false},
		{"3fff::1", false},
	}
	for _, tc := range tests {
		err := Addr(netip.MustParseAddr(tc.addr))
		if (err == nil) != tc.want {
			t.Errorf("Addr(%s) = %v, want allowed=%v", tc.addr, err, tc.want)
		}
		if err != nil && !errors.Is(err, ErrRefused) {
			t.Errorf("Addr(%s) = %v, not ErrRefused", tc.addr, err)
		}
	}
	if err := Addr(netip.Addr{}); !errors.Is(err, ErrRefused) {
		t.Errorf("Addr(zero) = %v", err)
	}
}

func TestParseIPv4(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" = not a literal
	}{
		{"127.0.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"0X7F.0.0.1", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"0", "0.0.0.0"},
		{"00", "0.0.0.0"},
		{"0x", "0.0.0.0"},
		{"167772161", "10.0.0.1"},
		{"0xa9fea9fe", "169.254.169.254"},
		{"10.0xffff", "10.0.255.255"},
		{"1.2.65535", "1.2.255.255"},
		{"4294967295", "255.255.255.255"},
		{"4294967296", ""},
		{"1.16777216", ""},
		{"1.2.65536", ""},
		{"256.0.0.1", ""},
		{"1.2.3.256", ""},
		{"1.2.3.4.5", ""},
		{"08", ""},
		{"0xg", ""},
		{"1..2", ""},
		{"1.2.3.", ""},
		{"", ""},
		{"a.b", ""},
		{"99999999999999999999", ""},
	}
	for _, tc := range tests {
		a, ok := ParseIPv4(tc.in)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tc.want {
			t.Errorf("ParseIPv4(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

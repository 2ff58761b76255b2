package e2e

import (
	"net"
	"net/http"
	"strings"
	"testing"
)

// clientFrom is an HTTP client whose connections leave from local address
// ip (any of 127.0.0.0/8 reaches the loopback listener).
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

func loginStatus(t *testing.T, c *http.Client, base, email, password string) int {
	t.Helper()
	resp, err := c.Post(base+"/api/v1/login", "application/json",
		strings.NewReader(`{"email":"`+email+`","password":"`+password+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestLoginThrottleSparesOwner runs the built binary with its default
// limits: an attacker's 50 wrong passwords from one address end in 429s,
// and the owner's correct password from another address still logs in.
func TestLoginThrottleSparesOwner(t *testing.T) {
	in := startHeddle(t, nil)
	signUp(t, in.URL, "owner@example.com", "", "", "")
	attacker, owner := clientFrom("127.0.0.2"), clientFrom("127.0.0.3")
	counts := map[int]int{}
	for range 50 {
		counts[loginStatus(t, attacker, in.URL, "owner@example.com", "wrong guess number x")]++
	}
	if counts[http.StatusTooManyRequests] == 0 || counts[http.StatusUnauthorized]+counts[http.StatusTooManyRequests] != 50 {
		t.Fatalf("attacker's answers: %v, want 401s then 429s", counts)
	}
	if got := loginStatus(t, attacker, in.URL, "owner@example.com", "correct horse battery staple"); got != http.StatusTooManyRequests {
		t.Errorf("the throttled address got %d for the right password, want 429", got)
	}
	if got := loginStatus(t, owner, in.URL, "owner@example.com", "correct horse battery staple"); got != http.StatusOK {
		t.Fatalf("owner from another address: %d, want 200", got)
	}
}

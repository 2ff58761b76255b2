package tenancy_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/tenancy"
)

// guardConfig isolates the account guard: the address limits are far away.
func guardConfig(c *clock) tenancy.LoginLimitConfig {
	return tenancy.LoginLimitConfig{
		PerIP: tenancy.Rate{PerMinute: 6000, Burst: 6000}, PerEmail: tenancy.Rate{PerMinute: 5, Burst: 5},
		AddressFailures: 1000, Backoff: time.Second, MaxBackoff: time.Minute, Now: c.Now,
	}
}

func retryAfter(t *testing.T, err error) time.Duration {
	t.Helper()
	var rl *tenancy.RateLimitError
	if !errors.As(err, &rl) || !errors.Is(err, tenancy.ErrRateLimited) {
		t.Fatalf("want a *RateLimitError, got %v", err)
	}
	return rl.RetryAfter
}

// TestLoginLimiterOwnerNotLockedOut: an attacker's 50 wrong passwords from
// address A are throttled with a growing backoff, and the owner's correct
// password from address B still passes.
func TestLoginLimiterOwnerNotLockedOut(t *testing.T) {
	c := newClock()
	l := tenancy.NewLoginLimiter(guardConfig(c))
	const victim = "victim@x.example"
	var waits []time.Duration
	for range 50 {
		if err := l.Allow("10.0.0.1", victim); err != nil {
			d := retryAfter(t, err)
			waits = append(waits, d)
			c.Advance(d)
			if err := l.Allow("10.0.0.1", victim); err != nil {
				t.Fatalf("still barred after waiting the Retry-After: %v", err)
			}
		}
		l.Failed("10.0.0.1", "Victim@X.example ")
	}
	// The budget of 5 absorbs the first failures; from then on each failure
	// bars A for double the last wait, up to MaxBackoff.
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 32 * time.Second, time.Minute}
	if len(waits) < len(want)+10 {
		t.Fatalf("attacker barred %d times in 50 attempts: %v", len(waits), waits)
	}
	for i, w := range want {
		if waits[i] != w {
			t.Fatalf("backoff %d = %v, want %v (all %v)", i, waits[i], w, waits)
		}
	}
	for _, w := range waits[len(want):] {
		if w != time.Minute {
			t.Fatalf("backoff fell below the cap: %v", waits)
		}
	}
	if err := l.Allow("10.0.0.1", victim); err == nil {
		t.Fatal("attacker not barred right after a failure")
	}
	// The owner, from an address that has not failed, is not refused.
	if err := l.Allow("10.0.0.2", victim); err != nil {
		t.Fatalf("owner from a fresh address refused: %v", err)
	}
	l.Succeeded("10.0.0.2", victim)
	// Nor is the attacker's bar on one account a bar on others.
	if err := l.Allow("10.0.0.1", "other@x.example"); err != nil {
		t.Fatalf("attacker's address barred on another account: %v", err)
	}
}

// TestLoginLimiterSpreadAttackBounded: an attacker spread over 100
// addresses gets about the account's budget plus one guess per address,
// not each address's own allowance, and the owner still gets in.
func TestLoginLimiterSpreadAttackBounded(t *testing.T) {
	c := newClock()
	cfg := guardConfig(c)
	cfg.AddressFailures = 10
	l := tenancy.NewLoginLimiter(cfg)
	const victim = "victim@x.example"
	guesses := 0
	for a := range 100 {
		ip := fmt.Sprintf("10.1.0.%d", a)
		for range 10 {
			if l.Allow(ip, victim) == nil {
				guesses++
				l.Failed(ip, victim)
			}
		}
	}
	if guesses > 5+100 {
		t.Fatalf("%d guesses on one account from 100 addresses, want at most 105", guesses)
	}
	if err := l.Allow("192.0.2.7", victim); err != nil {
		t.Fatalf("owner from a fresh address refused: %v", err)
	}
}

// TestLoginLimiterAddressBackoff: an address guessing across many accounts
// is barred after AddressFailures, for a doubling backoff, on every account.
func TestLoginLimiterAddressBackoff(t *testing.T) {
	c := newClock()
	cfg := guardConfig(c)
	cfg.AddressFailures = 3
	l := tenancy.NewLoginLimiter(cfg)
	for i := range 3 {
		if err := l.Allow("10.0.0.9", fmt.Sprint(i, "@spray.example")); err != nil {
			t.Fatalf("free failure %d refused: %v", i, err)
		}
		l.Failed("10.0.0.9", fmt.Sprint(i, "@spray.example"))
	}
	if err := l.Allow("10.0.0.9", "3@spray.example"); err != nil {
		t.Fatalf("attempt after the free failures refused: %v", err)
	}
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		l.Failed("10.0.0.9", fmt.Sprint("x", i, "@spray.example"))
		if got := retryAfter(t, l.Allow("10.0.0.9", "fresh@spray.example")); got != want {
			t.Fatalf("address backoff %d = %v, want %v", i, got, want)
		}
		c.Advance(want)
	}
	if err := l.Allow("10.0.0.10", "fresh@spray.example"); err != nil {
		t.Fatalf("another address barred: %v", err)
	}
}

// TestLoginLimiterSuccessClearsPair: a success from an address that had
// failed on the account starts that pair afresh.
func TestLoginLimiterSuccessClearsPair(t *testing.T) {
	c := newClock()
	l := tenancy.NewLoginLimiter(guardConfig(c))
	for range 6 {
		l.Failed("10.0.0.3", "me@x.example")
	}
	d := retryAfter(t, l.Allow("10.0.0.3", "me@x.example"))
	c.Advance(d)
	if err := l.Allow("10.0.0.3", "me@x.example"); err != nil {
		t.Fatal(err)
	}
	l.Succeeded("10.0.0.3", "me@x.example")
	l.Failed("10.0.0.3", "me@x.example") // a typo after logging in again
	c.Advance(time.Minute)               // the budget refills
	if err := l.Allow("10.0.0.3", "me@x.example"); err != nil {
		t.Fatalf("pair still suspect after a success: %v", err)
	}
}

func TestLoginLimiterAddressRate(t *testing.T) {
	c := newClock()
	l := tenancy.NewLoginLimiter(tenancy.LoginLimitConfig{PerIP: tenancy.Rate{PerMinute: 6, Burst: 4}, Now: c.Now})
	for i := range 4 {
		if err := l.Allow("1.1.1.1", fmt.Sprint(i, "@y.example")); err != nil {
			t.Fatalf("IP request %d: %v", i, err)
		}
	}
	if d := retryAfter(t, l.Allow("1.1.1.1", "fresh@y.example")); d != 10*time.Second {
		t.Fatalf("Retry-After %v, want 10s", d)
	}
	if err := l.Allow("2.2.2.2", "fresh@y.example"); err != nil {
		t.Fatalf("another address shares the bucket: %v", err)
	}
}

func TestLoginLimiterOrgCreation(t *testing.T) {
	c := newClock()
	l := tenancy.NewLoginLimiter(tenancy.LoginLimitConfig{PerIPOrgs: tenancy.Rate{PerMinute: 1, Burst: 2}, Now: c.Now})
	for i := range 2 {
		if err := l.AllowOrg("1.1.1.1"); err != nil {
			t.Fatalf("organisation %d refused: %v", i, err)
		}
	}
	if d := retryAfter(t, l.AllowOrg("1.1.1.1")); d != time.Minute {
		t.Fatalf("Retry-After %v, want 1m", d)
	}
	if err := l.AllowOrg("2.2.2.2"); err != nil {
		t.Fatalf("another address refused: %v", err)
	}
	c.Advance(time.Minute)
	if err := l.AllowOrg("1.1.1.1"); err != nil {
		t.Fatalf("not refilled: %v", err)
	}
}

// TestLoginLimiterIPv6Block: addresses of one IPv6 /64 share one budget, so
// an attacker rotating through its block is throttled like one address; an
// IPv4-mapped address counts as its IPv4 address.
func TestLoginLimiterIPv6Block(t *testing.T) {
	l := tenancy.NewLoginLimiter(tenancy.LoginLimitConfig{PerIP: tenancy.Rate{PerMinute: 3, Burst: 3}})
	for i := range 3 {
		if err := l.Allow(fmt.Sprintf("2001:db8:1:2::%x", i+1), ""); err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	if err := l.Allow("2001:db8:1:2:ffff::9", ""); err == nil {
		t.Error("a fourth address of the same /64 got a fresh budget")
	}
	if err := l.Allow("2001:db8:1:3::1", ""); err != nil {
		t.Errorf("another /64: %v", err)
	}
	for range 3 {
		_ = l.Allow("192.0.2.7", "")
	}
	if err := l.Allow("::ffff:192.0.2.7", ""); err == nil {
		t.Error("the IPv4-mapped form of a spent address got a fresh budget")
	}
}

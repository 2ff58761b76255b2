package tenancy_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/tenancy"
)

func TestLimiterBucket(t *testing.T) {
	c := newClock()
	l := tenancy.NewLimiter(tenancy.Rate{PerMinute: 60, Burst: 3}, 10, c.Now)
	for i := range 3 {
		if ok, _ := l.Allow("k"); !ok {
			t.Fatalf("request %d of the burst refused", i)
		}
	}
	ok, wait := l.Allow("k")
	if ok || wait != time.Second {
		t.Fatalf("over the burst: ok=%v wait=%v", ok, wait)
	}
	if ok, _ := l.Allow("other"); !ok {
		t.Fatal("another key shares the bucket")
	}
	c.Advance(time.Second)
	if ok, _ := l.Allow("k"); !ok {
		t.Fatal("token not refilled after a second at 60/min")
	}
	if ok, _ := l.Allow("k"); ok {
		t.Fatal("refilled more than one token")
	}
	// Many keys: memory stays bounded and fresh keys still get their burst.
	for i := range 100 {
		if ok, _ := l.Allow(fmt.Sprint("flood", i)); !ok {
			t.Fatalf("fresh key %d refused", i)
		}
	}
}

func TestLoginLimiter(t *testing.T) {
	c := newClock()
	l := tenancy.NewLoginLimiter(tenancy.LoginLimitConfig{
		PerIP: tenancy.Rate{PerMinute: 6, Burst: 4}, PerEmail: tenancy.Rate{PerMinute: 6, Burst: 2}, Now: c.Now,
	})
	if err := l.Allow("1.1.1.1", "a@x.example"); err != nil {
		t.Fatal(err)
	}
	if err := l.Allow("2.2.2.2", "A@X.example "); err != nil {
		t.Fatal(err)
	}
	err := l.Allow("3.3.3.3", "a@x.example")
	var rl *tenancy.RateLimitError
	if !errors.As(err, &rl) || !errors.Is(err, tenancy.ErrRateLimited) || rl.RetryAfter != 10*time.Second {
		t.Fatalf("third try for one email from three IPs: %v", err)
	}
	for i := range 3 { // the IP's burst of 4, one spent above
		if err := l.Allow("1.1.1.1", fmt.Sprint(i, "@y.example")); err != nil {
			t.Fatalf("IP request %d: %v", i, err)
		}
	}
	wantErr(t, l.Allow("1.1.1.1", "fresh@y.example"), tenancy.ErrRateLimited)
}

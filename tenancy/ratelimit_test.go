package tenancy_test

import (
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

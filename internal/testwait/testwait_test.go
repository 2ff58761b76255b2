package testwait

import (
	"testing"
	"time"
)

// fakeTB records a Fatalf instead of stopping the test.
type fakeTB struct {
	testing.TB
	failed string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = format
	panic(f) // Fatalf never returns
}

func TestUntil(t *testing.T) {
	n := 0
	Until(t, time.Minute, "the third check", func() bool { n++; return n == 3 })
	if n != 3 {
		t.Fatalf("cond checked %d times, want 3", n)
	}
	f := &fakeTB{}
	func() {
		defer func() { _ = recover() }()
		Until(f, 10*time.Millisecond, "never", func() bool { return false })
	}()
	if f.failed == "" {
		t.Fatal("a condition that never holds did not fail the test")
	}
}

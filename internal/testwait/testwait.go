// Package testwait is the one way tests wait: poll a condition until it
// holds, failing the test only when it stays false for a hang bound (never a
// timing claim: a loaded CI machine only makes the wait longer).
//
// Ring: test support (like internal/testdb), imported by tests only.
package testwait

import (
	"testing"
	"time"
)

// poll is how often Until checks cond.
const poll = 5 * time.Millisecond

// Until returns as soon as cond() is true; it fails tb with what if cond is
// still false after bound.
func Until(tb testing.TB, bound time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %s waiting for %s", bound, what)
		}
		time.Sleep(poll)
	}
}

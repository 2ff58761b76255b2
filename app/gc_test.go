package app

import (
	"runtime/debug"
	"testing"
)

// TestDefaultGC: serve's GOGC is 400 when the environment sets neither GOGC
// nor GOMEMLIMIT, and left as the runtime set it when either is there.
func TestDefaultGC(t *testing.T) {
	old := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(old) })
	for _, tc := range []struct {
		name string
		env  map[string]string
		want int
	}{
		{"unset", nil, 400},
		{"GOGC set", map[string]string{"GOGC": "100"}, 100},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "1GiB"}, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			applied := defaultGC(func(k string) string { return tc.env[k] })
			if got := debug.SetGCPercent(100); got != tc.want || applied != (tc.want == 400) {
				t.Errorf("GOGC after defaultGC: %d (applied %v), want %d", got, applied, tc.want)
			}
		})
	}
}

package app

import "runtime/debug"

// gcPercent is serve's GOGC when the operator set neither GOGC nor
// GOMEMLIMIT. Measured with the gateway load benchmark (c=32, events on,
// embedded): 400 cut CPU per request by about 8% against Go's 100 (fewer
// collections of a small live heap) for a higher peak RSS in the
// 500-stream run (about 30 MiB embedded, 65 MiB on Postgres + ClickHouse);
// 200 made no clear difference.
const gcPercent = 400

// defaultGC sets the collector's target to gcPercent unless the operator
// chose one (GOGC or GOMEMLIMIT in the environment, which the runtime
// already applied), and reports whether it did.
func defaultGC(getenv func(string) string) bool {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(gcPercent)
	return true
}

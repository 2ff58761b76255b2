package app

import (
	"slices"
	"strings"
)

// clientVariables are HEDDLE_* names the test suites and benchmarks read,
// not the server; they are not reported as unknown.
var clientVariables = []string{
	"HEDDLE_E2E_BIN", "HEDDLE_TEST_POSTGRES_URL", "HEDDLE_TEST_CLICKHOUSE_URL", "HEDDLE_TEST_REDIS_URL",
	"HEDDLE_ROUTERBENCH_DIR", "HEDDLE_SCALE_DB", "HEDDLE_SCALE_ROWS",
}

// knownVariables are the names LoadConfig reads (with the _FILE forms of
// secrets), found by loading a configuration that records every name asked.
func knownVariables() []string {
	var names []string
	_, _ = LoadConfig(func(k string) string {
		names = append(names, k)
		return ""
	})
	slices.Sort(names)
	return slices.Compact(names)
}

// unknownVariable is a HEDDLE_* variable set in the environment that nothing
// reads, with the known name nearest to it ("" when none is near).
type unknownVariable struct {
	Name, Nearest string
}

// unknownVariables reports every HEDDLE_* name in environ (KEY=VALUE
// entries) that is neither a configuration variable nor a client one. A
// nearest name is suggested when it is within a third of the name's length
// in edits (at least 2): a typo, not an unrelated name.
func unknownVariables(environ []string) []unknownVariable {
	known := knownVariables()
	var out []unknownVariable
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "HEDDLE_") || slices.Contains(known, name) || slices.Contains(clientVariables, name) {
			continue
		}
		u := unknownVariable{Name: name}
		best := max(2, len(name)/3) + 1
		for _, k := range known {
			if d := editDistance(name, k); d < best {
				u.Nearest, best = k, d
			}
		}
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b unknownVariable) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

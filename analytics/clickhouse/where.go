package clickhouse

import (
	"math"
	"strings"
)

// where collects AND-ed conditions and their positional arguments; values
// are always bound (client-side, escaped by the driver), never spliced.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

// timeRange adds [fromMs, toMs) on time_ms, plus the same bounds on the
// DateTime partition column so ClickHouse can skip whole partitions.
func (w *where) timeRange(fromMs, toMs int64) {
	if fromMs > 0 {
		w.add("time >= toDateTime(?) AND time_ms >= ?", fromMs/1000, fromMs)
	}
	if toMs != math.MaxInt64 {
		w.add("time <= toDateTime(?) AND time_ms < ?", toMs/1000, toMs)
	}
}

// String renders the WHERE clause, or "" without conditions.
func (w *where) String() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// prewhere renders the conditions as a PREWHERE clause (read first, the
// other columns only for the rows they pass), or "" without conditions.
func (w *where) prewhere() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " PREWHERE " + strings.Join(w.conds, " AND ")
}

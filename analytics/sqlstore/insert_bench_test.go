package sqlstore

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"gorm.io/gorm/clause"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/internal/testdb"
)

// batchAttempts is n attempt rows with fresh event ids.
func batchAttempts(n, round int) []attemptRow {
	now := time.Now().UTC()
	out := make([]attemptRow, n)
	for i := range out {
		out[i] = fromAttempt(analytics.Attempt{EventID: fmt.Sprintf("ev-%d-%d", round, i), Time: now, OrgID: "org-bench",
			KeyID: "key-1", RequestID: fmt.Sprintf("req-%d-%d", round, i), Model: "gpt-5-mini", Provider: "openai",
			Outcome: "served", Status: 200, LatencyMs: 12.5, InputTokens: 100, OutputTokens: 20, CostMicros: 340})
	}
	return out
}

// BenchmarkInsert writes attempt batches of 1,000 and of 32 rows through the prepared
// statements and, as the baseline in the same run, through gorm's
// CreateInBatches as the store did before (16 rows a statement on SQLite,
// 500 on Postgres), and reports the ratio (prepared / gorm time).
func BenchmarkInsert(b *testing.B) {
	for _, tc := range []struct {
		name        string
		open        func(testing.TB) testdb.DB
		chunk, rows int
	}{
		{"sqlite/1000", testdb.SQLite, 16, 1000}, {"sqlite/32", testdb.SQLite, 16, 32},
		{"postgres/1000", testdb.Postgres, 500, 1000}, {"postgres/32", testdb.Postgres, 500, 32},
	} {
		b.Run(tc.name, func(b *testing.B) {
			db := tc.open(b).DB
			s := New(db)
			ctx := context.Background()
			round := 0
			// Wall time includes the commit's disk wait; CPU time (of the
			// whole process, which runs nothing else) is what the gateway pays.
			timed := func(f func([]attemptRow) error, wall, cpu *time.Duration) {
				round++
				rows := batchAttempts(tc.rows, round)
				start, c0 := time.Now(), processCPU()
				if err := f(rows); err != nil {
					b.Fatal(err)
				}
				*wall += time.Since(start)
				*cpu += processCPU() - c0
			}
			var prepared, baseline, preparedCPU, baselineCPU time.Duration
			for b.Loop() {
				timed(func(rows []attemptRow) error { return s.attempts.insert(ctx, db, rows) }, &prepared, &preparedCPU)
				timed(func(rows []attemptRow) error {
					return db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).CreateInBatches(rows, tc.chunk).Error
				}, &baseline, &baselineCPU)
			}
			b.ReportMetric(float64(preparedCPU.Microseconds())/float64(b.N*tc.rows), "cpu-us/row")
			b.ReportMetric(float64(baselineCPU.Microseconds())/float64(b.N*tc.rows), "gorm-cpu-us/row")
			b.ReportMetric(float64(preparedCPU)/float64(baselineCPU), "cpu-ratio")
			b.ReportMetric(float64(prepared.Microseconds())/float64(b.N*tc.rows), "us/row")
			b.ReportMetric(float64(baseline.Microseconds())/float64(b.N*tc.rows), "gorm-us/row")
			b.ReportMetric(float64(prepared)/float64(baseline), "wall-ratio")
		})
	}
}

// processCPU is the user and system CPU time the process used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

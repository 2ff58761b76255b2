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
				timed(func(rows []attemptRow) error { return s.attempts.insert(ctx, db, &s.writer, rows) }, &prepared, &preparedCPU)
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

// gatewayRows is n attempts and n requests as the gateway records them:
// time-ordered event and request ids (UUIDv7-like), the same few orgs,
// keys and models.
func gatewayRows(n, round int) ([]analytics.Attempt, []analytics.Request) {
	now := time.Now().UTC()
	as, rs := make([]analytics.Attempt, n), make([]analytics.Request, n)
	for i := range n {
		id := fmt.Sprintf("%012x-7%03x-8%03x-%012x", now.UnixMilli(), round%4096, i%4096, round*n+i)
		org := fmt.Sprintf("org_%d", i%4)
		as[i] = analytics.Attempt{EventID: id + "a", Time: now, OrgID: org, KeyID: "key_" + org,
			RequestID: "req_" + id, OperationID: "op_" + id, Purpose: "serve", Model: "gpt-5-mini", Provider: "openai",
			Upstream: "openai", CredentialID: "cred_1", Outcome: "served", Status: 200, LatencyMs: 12.5, TTFBMs: 3.25,
			InputTokens: 100, OutputTokens: 20, CostMicros: 340}
		rs[i] = analytics.Request{EventID: id + "r", Time: now, RequestID: "req_" + id, OrgID: org, KeyID: "key_" + org,
			Format: "openai.chat", RequestedModel: "gpt-5-mini", ServedModel: "gpt-5-mini", Provider: "openai",
			RouteKind: "explicit", Decision: "pinned", Attempts: 1, InputTokens: 100, OutputTokens: 20, CostMicros: 340,
			LatencyMs: 12.5, TTFBMs: 3.25, Status: 200}
	}
	return as, rs
}

// BenchmarkStoreInsertSQLite is the Writer's SQLite insert of one batch
// (InsertAttempts then InsertRequests of 500 rows each, as a 1,000-row
// batch of the gateway holds them) through the Store, on a real SQLite
// file. It reports the process's CPU per row (what the gateway pays per
// row it records) besides ns/op.
func BenchmarkStoreInsertSQLite(b *testing.B) {
	const n = 500
	s := New(testdb.SQLite(b).DB)
	ctx := context.Background()
	var cpu time.Duration
	round := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		round++
		as, rs := gatewayRows(n, round)
		b.StartTimer()
		c0 := processCPU()
		if err := s.InsertAttempts(ctx, as); err != nil {
			b.Fatal(err)
		}
		if err := s.InsertRequests(ctx, rs); err != nil {
			b.Fatal(err)
		}
		cpu += processCPU() - c0
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(b.N*2*n), "cpu-us/row")
}

package clickhouse_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/clickhouse"
)

// ingestRows is what one op of BenchmarkIngestMix inserts: as many requests
// as attempts, one attempt in ten failed with a reason (the failure rollups'
// input), in batches of benchBatch.
const ingestRows = 50_000

// ingestRuns numbers BenchmarkIngestMix's ops: every op inserts new event ids.
var ingestRuns atomic.Int64

// ingestMix returns run's rows: distinct event ids, 20 organisations, 200
// users, times one millisecond apart.
func ingestMix(run int) ([]analytics.Request, []analytics.Attempt) {
	t0 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC).Add(time.Duration(run) * time.Minute)
	reqs := make([]analytics.Request, ingestRows)
	atts := make([]analytics.Attempt, ingestRows)
	for i := range reqs {
		at := t0.Add(time.Duration(i) * time.Millisecond)
		org, rid := "org-"+strconv.Itoa(i%20), fmt.Sprintf("req-%d-%07d", run, i)
		reqs[i] = analytics.Request{EventID: fmt.Sprintf("ir-%d-%07d", run, i), Time: at, RequestID: rid, OrgID: org,
			KeyID: "key-" + strconv.Itoa(i%7), User: "user-" + strconv.Itoa(i%200), Session: "sess-" + strconv.Itoa(i%50),
			Format: "openai", RequestedModel: "auto", ServedModel: "gpt-5-mini", Provider: "openai", RouteKind: "routed",
			Decision: "cheapest that passes", Stream: i%2 == 0, Attempts: 1, InputTokens: 1200, OutputTokens: 300,
			CostMicros: 450, BaselineMicros: 900, SavingsMicros: 450, LatencyMs: 812.5 + float64(i%97), TTFBMs: 240.25,
			Status: 200, Tags: "team:a", BaselineModel: "gpt-5", Candidates: "gpt-5-mini:0.91,gpt-5:0.95"}
		atts[i] = analytics.Attempt{EventID: fmt.Sprintf("ia-%d-%07d", run, i), Time: at, OrgID: org,
			KeyID: reqs[i].KeyID, RequestID: rid, OperationID: "op-1", Purpose: "main", PolicyID: "pol-1",
			BundleID: "b-1", BundleRevision: "r-3", Model: "gpt-5-mini", Provider: "openai", Upstream: "gpt-5-mini",
			CredentialID: "cred-1", Outcome: "served", Status: 200, LatencyMs: 800 + float64(i%89), TTFBMs: 240.25,
			InputTokens: 1200, OutputTokens: 300, CostMicros: 450, Stream: i%2 == 0}
		if i%10 == 0 {
			atts[i].Outcome, atts[i].Reason, atts[i].Status = "failed", "upstream_5xx", 503
		}
	}
	return reqs, atts
}

// BenchmarkIngestMix inserts ingestRows requests and as many attempts
// into the real server through the Store, in batches of benchBatch as the
// hosted deployment's Writer does (HEDDLE_INGEST_BATCH overrides), once through Insert* (the stored-ids
// check every retry and replay makes) and once through InsertFresh* (the
// Writer's first tries) per op, alternating which goes first. It reports
// each path's client allocations per row and the ClickHouse server's CPU
// (utime+stime of the clickhouse-server process, when it runs on this
// machine: its insert work, its materialized views and the ingest checks'
// SELECTs, plus whatever merges ran meanwhile) per round of 100k rows, and
// the ratio fresh/dedup of that CPU; and, from system.query_log, the CPU
// the server's threads spent on each kind of query (logged with -v).
//
//	go test -run '^$' -bench IngestMix -benchtime 5x ./analytics/clickhouse/
func BenchmarkIngestMix(b *testing.B) {
	s := openFresh(b)
	paths := []ingestPath{
		{name: "dedup", req: s.InsertRequests, att: s.InsertAttempts},
		{name: "fresh", req: s.InsertFreshRequests, att: s.InsertFreshAttempts},
	}
	pid := serverPID()
	ops := 0
	for b.Loop() {
		for k := range paths {
			p := &paths[(k+ops)%len(paths)]
			p.round(b, pid)
		}
		ops++
	}
	rows := float64(ops * 2 * ingestRows)
	for _, p := range paths {
		b.ReportMetric(float64(p.mallocs)/rows, p.name+"_allocs/row")
		b.ReportMetric(float64(p.wall.Milliseconds())/float64(ops), p.name+"_ms/round")
		if pid > 0 {
			b.ReportMetric(float64(p.cpu.Milliseconds())/float64(ops), p.name+"_server_cpu_ms/round")
		}
	}
	if pid > 0 && paths[0].cpu > 0 {
		b.ReportMetric(float64(paths[1].cpu)/float64(paths[0].cpu), "fresh/dedup_server_cpu")
	}
	var total [2]float64
	for k, p := range paths {
		for _, q := range queryCPU(b, s, p.queryKey()) {
			b.Logf("%s: %-16s %5d queries %8.0f ms CPU per round", p.name, q.kind, q.n/uint64(ops), q.ms/float64(ops))
			total[k] += q.ms / float64(ops)
		}
		b.ReportMetric(total[k], p.name+"_query_cpu_ms/round")
	}
}

// queryKind is what system.query_log says queries of one kind cost.
type queryKind struct {
	kind string
	n    uint64
	ms   float64 // user plus system CPU, the server's threads for them
}

// queryCPU sums, per kind of query, the server CPU (UserTimeMicroseconds
// plus SystemTimeMicroseconds: an INSERT's includes its materialized
// views, not the merges after it) of the queries carrying quota key key.
func queryCPU(b *testing.B, s *clickhouse.Store, key string) []queryKind {
	ctx := context.Background()
	if err := s.Conn().Exec(ctx, "SYSTEM FLUSH LOGS"); err != nil {
		b.Fatal(err)
	}
	rows, err := s.Conn().Query(ctx, `SELECT multiIf(query LIKE 'INSERT INTO attempts%', 'insert attempts',
		query LIKE 'INSERT INTO requests%', 'insert requests', query LIKE 'SELECT event_id%', 'stored ids',
		query LIKE 'SELECT DISTINCT request_id%', 'marked reasons', 'other') AS kind, count(),
		sum(arraySum(arrayFilter((v, n) -> n IN ('UserTimeMicroseconds', 'SystemTimeMicroseconds'),
			ProfileEvents.Values, ProfileEvents.Names))) / 1000
		FROM system.query_log WHERE type = 2 AND quota_key = ? GROUP BY kind ORDER BY kind`, key)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var out []queryKind
	for rows.Next() {
		var q queryKind
		if err := rows.Scan(&q.kind, &q.n, &q.ms); err != nil {
			b.Fatal(err)
		}
		out = append(out, q)
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return out
}

// ingestPath is one way of inserting and what its rounds measured.
type ingestPath struct {
	name    string
	req     func(context.Context, []analytics.Request) error
	att     func(context.Context, []analytics.Attempt) error
	mallocs uint64
	cpu     time.Duration
	wall    time.Duration
}

// queryKey is the quota key p's queries carry, to find them in
// system.query_log (a query id cannot be shared by the queries of a round:
// the server may still be finishing one when the next starts).
func (p *ingestPath) queryKey() string {
	return fmt.Sprintf("hbench-%d-%s", os.Getpid(), p.name)
}

// round inserts one op's new rows through p, timing only the inserts; the
// server logs its queries under p's quota key.
func (p *ingestPath) round(b *testing.B, pid int) {
	b.StopTimer()
	ctx := ch.Context(context.Background(), ch.WithSettings(ch.Settings{"log_queries": 1}),
		ch.WithQuotaKey(p.queryKey()))
	reqs, atts := ingestMix(int(ingestRuns.Add(1)))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0, start := processCPU(pid), time.Now()
	b.StartTimer()
	batch := ingestBatch()
	for i := 0; i < ingestRows; i += batch {
		end := min(i+batch, ingestRows)
		if err := p.att(ctx, atts[i:end]); err != nil {
			b.Fatal(err)
		}
		if err := p.req(ctx, reqs[i:end]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	p.wall += time.Since(start)
	p.cpu += processCPU(pid) - cpu0
	runtime.ReadMemStats(&after)
	p.mallocs += after.Mallocs - before.Mallocs
	b.StartTimer()
}

// ingestBatch is the rows per insert call: HEDDLE_INGEST_BATCH, else
// benchBatch (the hosted deployment's BatchSize; a Writer flushing every
// FlushInterval under light traffic makes smaller ones).
func ingestBatch() int {
	if n, err := strconv.Atoi(os.Getenv("HEDDLE_INGEST_BATCH")); err == nil && n > 0 {
		return n
	}
	return benchBatch
}

// serverPID finds the clickhouse-server process on this machine (0: none).
func serverPID() int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/comm")
	for _, f := range dirs {
		comm, err := os.ReadFile(f)
		if err != nil || !strings.HasPrefix(string(comm), "clickhouse-serv") {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if err == nil {
			return pid
		}
	}
	return 0
}

// processCPU is pid's user plus system CPU time, all threads (0 for pid 0).
func processCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the parenthesised command name; utime and stime are the
	// 14th and 15th fields, in clock ticks (USER_HZ, 100 on Linux).
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+2:])
	f := strings.Fields(rest)
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

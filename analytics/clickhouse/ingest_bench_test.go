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

// BenchmarkIngestMix inserts ingestRows requests and as many attempts per
// op into the real server through the Store, in batches of benchBatch as
// the hosted deployment's Writer does, and reports the client's
// allocations per row and the ClickHouse server's CPU per op (utime+stime
// of the clickhouse-server process, when it runs on this machine): the
// server's insert work, its materialized views and the ingest checks'
// SELECTs, plus whatever merges ran meanwhile.
//
//	go test -run '^$' -bench IngestMix -benchtime 5x ./analytics/clickhouse/
func BenchmarkIngestMix(b *testing.B) {
	s := openFresh(b)
	b.Run("path=dedup", func(b *testing.B) { benchIngest(b, s, s.InsertRequests, s.InsertAttempts) })
}

func benchIngest(b *testing.B, s *clickhouse.Store, insReq func(context.Context, []analytics.Request) error,
	insAtt func(context.Context, []analytics.Attempt) error) {
	ctx := context.Background()
	pid := serverPID()
	var mallocs uint64
	var cpu time.Duration
	run := 0
	for b.Loop() {
		b.StopTimer()
		run++
		reqs, atts := ingestMix(int(ingestRuns.Add(1)))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		cpu0 := processCPU(pid)
		b.StartTimer()
		for i := 0; i < ingestRows; i += benchBatch {
			end := min(i+benchBatch, ingestRows)
			if err := insAtt(ctx, atts[i:end]); err != nil {
				b.Fatal(err)
			}
			if err := insReq(ctx, reqs[i:end]); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		cpu += processCPU(pid) - cpu0
		runtime.ReadMemStats(&after)
		mallocs += after.Mallocs - before.Mallocs
		b.StartTimer()
	}
	rows := float64(run * 2 * ingestRows)
	b.ReportMetric(float64(mallocs)/rows, "allocs/row")
	if pid > 0 {
		b.ReportMetric(float64(cpu.Milliseconds())/float64(run), "server_cpu_ms/op")
	}
	_ = s
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

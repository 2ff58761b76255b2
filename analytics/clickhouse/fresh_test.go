package clickhouse_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/clickhouse"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// countingConn counts the ingest checks' queries: the stored event ids
// (dedup.go's stored) and the marked failure reasons (marks).
type countingConn struct {
	driver.Conn
	mu            sync.Mutex
	storedIDs     int
	markedReasons int
}

func (c *countingConn) Query(ctx context.Context, query string, args ...any) (driver.Rows, error) {
	c.mu.Lock()
	switch {
	case strings.HasPrefix(query, "SELECT event_id FROM "):
		c.storedIDs++
	case strings.HasPrefix(query, "SELECT DISTINCT request_id, reason FROM attempts"):
		c.markedReasons++
	}
	c.mu.Unlock()
	return c.Conn.Query(ctx, query, args...)
}

// counts returns the stored-ids and marked-reasons queries so far.
func (c *countingConn) counts() (storedIDs, markedReasons int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.storedIDs, c.markedReasons
}

// freshRows returns n requests and their attempts, every fifth failed.
func freshRows(prefix string, n int) ([]analytics.Request, []analytics.Attempt) {
	t0 := time.Now().Add(-time.Hour).UTC()
	var reqs []analytics.Request
	var atts []analytics.Attempt
	for i := range n {
		at := t0.Add(time.Duration(i) * time.Millisecond)
		rid := fmt.Sprintf("%s-req-%d", prefix, i)
		reqs = append(reqs, analytics.Request{EventID: fmt.Sprintf("%s-r-%d", prefix, i), Time: at, RequestID: rid,
			OrgID: "org-f", KeyID: "k", ServedModel: "m", RouteKind: "explicit", Status: 200, Attempts: 1, CostMicros: 3})
		a := analytics.Attempt{EventID: fmt.Sprintf("%s-a-%d", prefix, i), Time: at, RequestID: rid, OrgID: "org-f",
			OperationID: "op", Outcome: "served", Status: 200, CostMicros: 3}
		if i%5 == 0 {
			a.Outcome, a.Reason, a.Status = "failed", "upstream_5xx", 503
		}
		atts = append(atts, a)
	}
	return reqs, atts
}

// stored counts what ClickHouse holds of org-f: raw rows of both tables
// and the failure rollup's attempts (a SummingMergeTree keeps a duplicate's
// count for good, whatever the raw table's merges collapse).
func stored(t *testing.T, s *clickhouse.Store) (requests, attempts, rolledUp uint64) {
	t.Helper()
	ctx := context.Background()
	for q, dst := range map[string]*uint64{
		"SELECT count() FROM requests WHERE org_id = 'org-f'":                           &requests,
		"SELECT count() FROM attempts WHERE org_id = 'org-f'":                           &attempts,
		"SELECT sum(attempts) FROM attempts_hourly_reason_exact WHERE org_id = 'org-f'": &rolledUp,
	} {
		if err := s.Conn().QueryRow(ctx, q).Scan(dst); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return requests, attempts, rolledUp
}

// TestFreshInsertRunsNoStoredIDsQuery: a fresh batch is inserted without
// the stored-ids query (failed attempts still get their reason marks
// checked), a repeat within the batch is still dropped, and the same rows
// replayed through Insert* are found stored and ignored.
func TestFreshInsertRunsNoStoredIDsQuery(t *testing.T) {
	base := openFresh(t)
	conn := &countingConn{Conn: base.Conn()}
	s := clickhouse.New(conn)
	ctx := context.Background()
	reqs, atts := freshRows("f", 500)

	if err := s.InsertFreshAttempts(ctx, append(atts, atts[7])); err != nil {
		t.Fatal(err)
	}
	if err := s.InsertFreshRequests(ctx, append(reqs, reqs[3])); err != nil {
		t.Fatal(err)
	}
	if ids, marks := conn.counts(); ids != 0 || marks != 1 {
		t.Errorf("fresh inserts ran %d stored-ids and %d marked-reasons queries, want 0 and 1", ids, marks)
	}
	if r, a, rolled := stored(t, s); r != 500 || a != 500 || rolled != 100 {
		t.Errorf("after fresh inserts: %d requests, %d attempts, %d rolled-up failed attempts; want 500, 500, 100", r, a, rolled)
	}

	if err := s.InsertAttempts(ctx, atts); err != nil {
		t.Fatal(err)
	}
	if err := s.InsertRequests(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	if ids, _ := conn.counts(); ids != 2 {
		t.Errorf("replays ran %d stored-ids queries, want 2", ids)
	}
	if r, a, rolled := stored(t, s); r != 500 || a != 500 || rolled != 100 {
		t.Errorf("after replays: %d requests, %d attempts, %d rolled-up failed attempts; want 500, 500, 100", r, a, rolled)
	}
}

// landThenFail is a ClickHouse store whose first fresh insert of each table
// lands and then reports a timeout, as an insert the server took after the
// client gave up on it.
type landThenFail struct {
	*clickhouse.Store
	mu               sync.Mutex
	failedA, failedR bool
}

func (l *landThenFail) InsertFreshAttempts(ctx context.Context, rows []analytics.Attempt) error {
	if err := l.Store.InsertFreshAttempts(ctx, rows); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.failedA {
		l.failedA = true
		return context.DeadlineExceeded
	}
	return nil
}

func (l *landThenFail) InsertFreshRequests(ctx context.Context, rows []analytics.Request) error {
	if err := l.Store.InsertFreshRequests(ctx, rows); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.failedR {
		l.failedR = true
		return context.DeadlineExceeded
	}
	return nil
}

// TestWriterRetryAfterLandedFreshInsertStoresOnce: the Writer's first try
// of a batch lands in ClickHouse but reports a timeout; its retry checks
// the stored ids, so every row (and the failure rollup) counts once.
func TestWriterRetryAfterLandedFreshInsertStoresOnce(t *testing.T) {
	s := openFresh(t)
	store := &landThenFail{Store: s}
	w := analytics.NewWriter(store, analytics.WriterConfig{BatchSize: 200, FlushInterval: time.Hour, Pending: 100,
		MaxRetries: 100, RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond, SpillDir: t.TempDir()}, nil)
	ctx := context.Background()
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	reqs, atts := freshRows("w", 1000)
	for i := range reqs {
		w.RecordAttempt(atts[i])
		w.RecordRequest(reqs[i])
	}
	testwait.Until(t, 30*time.Second, "every row inserted", func() bool { return w.Stats().Inserted == 2000 })
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Failures != 2 {
		t.Errorf("failures: %d, want the two landed-then-failed first tries", st.Failures)
	}
	if r, a, rolled := stored(t, s); r != 1000 || a != 1000 || rolled != 200 {
		t.Errorf("stored %d requests, %d attempts, %d rolled-up failed attempts; want 1000, 1000, 200", r, a, rolled)
	}
}

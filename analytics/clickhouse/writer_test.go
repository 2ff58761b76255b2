package clickhouse_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
)

// outage fails every insert while down is set, as a ClickHouse that cannot
// be reached would.
type outage struct {
	analytics.Store
	down atomic.Bool
}

var errUnreachable = errors.New("dial tcp 127.0.0.1:9000: connection refused")

func (o *outage) InsertAttempts(ctx context.Context, rows []analytics.Attempt) error {
	if o.down.Load() {
		return errUnreachable
	}
	return o.Store.InsertAttempts(ctx, rows)
}

func (o *outage) InsertRequests(ctx context.Context, rows []analytics.Request) error {
	if o.down.Load() {
		return errUnreachable
	}
	return o.Store.InsertRequests(ctx, rows)
}

// TestWriterIntoClickHouseThroughOutageAndRestart records the contract
// fixture while ClickHouse is "down": the first writer spills and stops;
// a second writer (a restarted process) replays the spill into the real
// server, where every row is counted exactly once.
func TestWriterIntoClickHouseThroughOutageAndRestart(t *testing.T) {
	s := openFresh(t)
	dir := t.TempDir()
	cfg := analytics.WriterConfig{BatchSize: 4, FlushInterval: 5 * time.Millisecond, RetryBase: time.Millisecond,
		RetryMax: 10 * time.Millisecond, MaxRetries: 2, SpillDir: dir}

	flaky := &outage{Store: s}
	flaky.down.Store(true)
	w1 := analytics.NewWriter(flaky, cfg, nil)
	if err := w1.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	half := analyticstest.OrgARequests()[:4]
	for _, r := range half {
		w1.RecordRequest(r)
	}
	for _, a := range analyticstest.OrgAAttempts() {
		w1.RecordAttempt(a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	if err := w1.Close(ctx); err != nil {
		t.Fatalf("first writer lost rows: %v", err)
	}
	cancel()
	if st := w1.Stats(); st.Segments == 0 || st.Inserted != 0 || st.Failures == 0 {
		t.Fatalf("first writer: %+v", st)
	}

	w2 := analytics.NewWriter(s, cfg, nil)
	if err := w2.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, r := range analyticstest.OrgARequests() { // the first four again: a client-side replay
		w2.RecordRequest(r)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := w2.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if st := w2.Stats(); st.Segments != 0 || st.Dropped != 0 || st.Inserted != 4+10+7 {
		t.Errorf("second writer: %+v", st)
	}

	sum, err := s.Summary(ctx, analyticstest.OrgA, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Requests != 7 || sum.CostMicros != 10500 || sum.SavingsMicros != 8500 {
		t.Errorf("summary: %+v", sum)
	}
	var raw, final uint64
	if err := s.Conn().QueryRow(ctx, "SELECT count() FROM requests").Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if err := s.Conn().QueryRow(ctx, "SELECT count() FROM requests FINAL").Scan(&final); err != nil {
		t.Fatal(err)
	}
	if final != 7 || raw < final {
		t.Errorf("rows: %d stored, %d after FINAL; want 7 after FINAL", raw, final)
	}
	tl, err := s.Timeline(ctx, analyticstest.OrgA, "req-2")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(len(tl.Attempts), tl.Request != nil); got != "3 true" {
		t.Errorf("timeline of req-2: %d attempts, request %v", len(tl.Attempts), tl.Request != nil)
	}
}

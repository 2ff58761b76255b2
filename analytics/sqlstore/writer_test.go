package sqlstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
	"github.com/heddle-gw/heddle/analytics/sqlstore"
	"github.com/heddle-gw/heddle/internal/testdb"
)

// TestWriterIntoPostgresKeepsValidRows: a row the store rejects (an attempt
// index beyond 32 bits) is dropped alone; the Writer inserts the rest of its
// batch row by row into the real database.
func TestWriterIntoPostgresKeepsValidRows(t *testing.T) {
	s := sqlstore.New(testdb.Postgres(t).DB)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	bad := analyticstest.OrgAAttempts()[0]
	bad.EventID, bad.AttemptIndex = "bad-1", 1<<40
	err := s.InsertAttempts(ctx, []analytics.Attempt{bad})
	if !errors.Is(err, analytics.ErrRejected) {
		t.Fatalf("insert out-of-range row: got %v, want ErrRejected", err)
	}

	w := analytics.NewWriter(s, analytics.WriterConfig{FlushInterval: 5 * time.Millisecond}, nil)
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	good := analyticstest.OrgAAttempts()
	for i, a := range good {
		w.RecordAttempt(a)
		if i == 3 {
			w.RecordAttempt(bad)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Rejected != 1 || st.Inserted != int64(len(good)) || st.Dropped != 0 {
		t.Errorf("stats: %+v", st)
	}
	tl, err := s.Timeline(ctx, analyticstest.OrgA, "req-4")
	if err != nil || len(tl.Attempts) != 3 {
		t.Errorf("timeline of req-4 after the rejected row: %+v, %v", tl.Attempts, err)
	}
}

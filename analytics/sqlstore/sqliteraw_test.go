package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"modernc.org/libc"

	"github.com/heddle-gw/heddle/internal/testdb"
)

// TestCBufferPutBounds: a text value is copied into the C buffer only
// within what reserve made room for; one that does not fit is refused
// instead of bound with a length past the copied bytes (which SQLite would
// read beyond the buffer).
func TestCBufferPutBounds(t *testing.T) {
	tls := libc.NewTLS()
	defer tls.Close()
	var b cBuffer
	defer b.free(tls)
	if err := b.reserve(tls, 10); err != nil {
		t.Fatal(err)
	}
	full := make([]byte, b.cap)
	for i := range full {
		full[i] = 'a'
	}
	if p, ok := b.put(0, full); !ok || p != b.p {
		t.Fatalf("put of %d bytes into %d: %#x %v, want %#x true", len(full), b.cap, p, ok, b.p)
	}
	if p, ok := b.put(b.cap, nil); !ok || p != b.p+uintptr(b.cap) {
		t.Errorf("put of an empty text at the end: %#x %v, want the end address and true", p, ok)
	}
	if _, ok := b.put(b.cap-5, []byte("123456")); ok {
		t.Errorf("put of 6 bytes at %d of a %d-byte buffer was accepted", b.cap-5, b.cap)
	}
	if _, ok := b.put(b.cap+1, nil); ok {
		t.Errorf("put at %d of a %d-byte buffer was accepted", b.cap+1, b.cap)
	}
	if got := unsafe.String((*byte)(cPtr(b.p)), b.cap); got != string(full) {
		t.Errorf("buffer changed by refused puts")
	}
}

// errAfter is a context whose Err is nil for its first n calls and
// Canceled after: a cancel in the middle of a batch.
type errAfter struct {
	context.Context
	n int
}

func (c *errAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestSQLiteRawBatchFailsWhole: a batch that fails in the middle (its
// context cancelled after two looks, or a row the table refuses, a NaN
// bound as NULL into a NOT NULL column) stores none of its rows, and the
// connection it ran on takes the next batch (its transaction was rolled
// back, its statement finalized).
func TestSQLiteRawBatchFailsWhole(t *testing.T) {
	db := testdb.SQLite(t).DB
	sdb, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	sdb.SetMaxOpenConns(2) // the one the inserts keep, and one for the counts
	s := New(db)
	t.Cleanup(func() { s.Close() })
	count := func() int64 {
		var n int64
		if err := db.Model(&attemptRow{}).Count(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}
	rows := batchAttempts(3*rawRowsCheckEvery+1, 1)
	if err := s.attempts.insert(&errAfter{Context: context.Background(), n: 2}, db, &s.writer, rows); !errors.Is(err, context.Canceled) {
		t.Errorf("batch cancelled after %d rows: %v, want context.Canceled", 2*rawRowsCheckEvery, err)
	}
	if n := count(); n != 0 {
		t.Errorf("cancelled batch: %d rows stored, want 0", n)
	}
	rows[2*rawRowsCheckEvery+3].LatencyMs = math.NaN()
	if err := s.attempts.insert(context.Background(), db, &s.writer, rows); err == nil || !strings.Contains(err.Error(), "NOT NULL") {
		t.Errorf("batch with a NaN latency: %v, want the NOT NULL constraint", err)
	}
	if n := count(); n != 0 {
		t.Errorf("failed batch: %d rows stored, want 0", n)
	}
	rows[2*rawRowsCheckEvery+3].LatencyMs = 1
	if err := s.attempts.insert(context.Background(), db, &s.writer, rows); err != nil {
		t.Fatalf("batch after the failed ones: %v", err)
	}
	if n := count(); n != int64(len(rows)) {
		t.Errorf("batch after the failed ones: %d rows stored, want %d", n, len(rows))
	}
}

// fkRow is a row of a table whose foreign key is checked at COMMIT.
type fkRow struct {
	EventID string `gorm:"column:event_id"`
	Parent  string `gorm:"column:parent"`
}

// TestSQLiteCommitFailureRollsBack: a batch whose COMMIT fails (here a
// deferred foreign key, checked at COMMIT, which then leaves SQLite's
// transaction open) is rolled back, so the connection takes the next
// batch instead of refusing every later BEGIN.
func TestSQLiteCommitFailureRollsBack(t *testing.T) {
	db := testdb.SQLite(t).DB
	sdb, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	sdb.SetMaxOpenConns(1) // every batch on the same connection
	for _, q := range []string{
		"CREATE TABLE fk_parent (id TEXT PRIMARY KEY)",
		"CREATE TABLE fk_child (event_id TEXT PRIMARY KEY, parent TEXT REFERENCES fk_parent (id) DEFERRABLE INITIALLY DEFERRED)",
		"INSERT INTO fk_parent (id) VALUES ('p')",
	} {
		if err := db.Exec(q).Error; err != nil {
			t.Fatal(err)
		}
	}
	ins := newInserter("fk_child", fkRow{}, false)
	var wc writeConn // the inserts keep the pool's one connection
	for _, raw := range []bool{true, false} {
		if err := ins.insertVia(context.Background(), db, &wc, []fkRow{{EventID: fmt.Sprint("orphan-", raw), Parent: "none"}}, raw); err == nil {
			t.Fatalf("raw %v: a row without its parent was committed", raw)
		}
		if err := ins.insertVia(context.Background(), db, &wc, []fkRow{{EventID: fmt.Sprint("child-", raw), Parent: "p"}}, raw); err != nil {
			t.Errorf("raw %v: batch after a failed commit: %v", raw, err)
		}
	}
	if err := wc.close(); err != nil { // the count below needs the connection
		t.Fatal(err)
	}
	var n int64
	if err := db.Table("fk_child").Count(&n).Error; err != nil || n != 2 {
		t.Errorf("fk_child: %d rows, %v; want the 2 children", n, err)
	}
}

// TestSQLiteInsertAllocatesPerBatchNotPerRow: a batch through the Store's
// SQLite path costs a bounded number and size of allocations whatever its
// number of rows (the rows it converts them to are reused from batch to
// batch, times are formatted without boxing them), so the write path
// leaves no garbage per row.
func TestSQLiteInsertAllocatesPerBatchNotPerRow(t *testing.T) {
	s := New(testdb.SQLite(t).DB)
	ctx := context.Background()
	const n = 500
	var before, after runtime.MemStats
	for round := range 6 {
		as, rs := gatewayRows(n, round)
		runtime.ReadMemStats(&before)
		if err := s.InsertAttempts(ctx, as); err != nil {
			t.Fatal(err)
		}
		if err := s.InsertRequests(ctx, rs); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if round == 0 {
			continue // warm: the connection, the reused rows
		}
		allocs, bytes := after.Mallocs-before.Mallocs, after.TotalAlloc-before.TotalAlloc
		if allocs > n/4 || bytes > 64<<10 {
			t.Fatalf("a batch of %d attempts and %d requests: %d allocations of %d bytes, want at most %d of %d",
				n, n, allocs, bytes, n/4, 64<<10)
		}
	}
}

// TestAppendSQLiteTimeIsAppendFormat: the written-out formatter of bound
// times gives AppendFormat's bytes for every time: UTC ones of every
// fraction length and across the year range, and others (which it hands
// to AppendFormat).
func TestAppendSQLiteTimeIsAppendFormat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	times := []time.Time{
		time.Unix(0, 0).UTC(), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(2026, 12, 3, 14, 5, 6, 100000000, time.UTC), time.Date(2026, 12, 3, 14, 5, 6, 120000000, time.UTC),
		time.Date(2026, 12, 3, 14, 5, 6, 123000000, time.UTC), time.Date(2026, 12, 3, 14, 5, 6, 1, time.UTC),
		time.Date(-5, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.FixedZone("x", -(3*3600+30*60))), time.Now(),
	}
	for range 2000 {
		ms := rng.Int64N(253402300800000) // years 1970-9999
		times = append(times, time.UnixMilli(ms).UTC(), time.Unix(rng.Int64N(1<<34), rng.Int64N(1e9)).UTC())
	}
	for _, tm := range times {
		if got, want := string(appendSQLiteTime([]byte("x"), tm)), "x"+tm.Format(sqliteTime); got != want {
			t.Errorf("%v: %q, want %q", tm, got, want)
		}
	}
}

// TestSQLiteInsertsKeepOneConnection: every SQLite insert of a Store runs on
// the one connection it keeps (whose page cache then stays warm between
// batches), whatever other connections of the pool do meanwhile, and Close
// gives it back to the pool.
func TestSQLiteInsertsKeepOneConnection(t *testing.T) {
	db := testdb.SQLite(t).DB
	sdb, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	s := New(db)
	ctx := context.Background()
	handle := func() uintptr {
		if s.writer.conn == nil {
			t.Fatal("the Store kept no connection after its inserts")
		}
		var h uintptr
		if err := s.writer.conn.Raw(func(dc any) error {
			h, _, _ = sqliteHandle(dc)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return h
	}
	var first uintptr
	for round := range 4 {
		as, rs := gatewayRows(50, round)
		if err := s.InsertAttempts(ctx, as); err != nil {
			t.Fatal(err)
		}
		// Another connection writes and reads between the batches.
		if err := db.Exec("UPDATE attempts SET status = status WHERE event_id = ?", as[0].EventID).Error; err != nil {
			t.Fatal(err)
		}
		if err := s.InsertRequests(ctx, rs); err != nil {
			t.Fatal(err)
		}
		if h := handle(); round == 0 {
			first = h
		} else if h != first {
			t.Fatalf("round %d: inserts ran on SQLite handle %#x, the first round on %#x", round, h, first)
		}
		if n := sdb.Stats().InUse; n != 1 {
			t.Fatalf("round %d: %d pooled connections in use between batches, want the 1 the inserts keep", round, n)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := sdb.Stats().InUse; n != 0 {
		t.Errorf("after Close: %d pooled connections in use, want 0", n)
	}
	var n int64
	if err := db.Table("requests").Count(&n).Error; err != nil || n != 200 {
		t.Errorf("requests: %d rows, %v; want 200", n, err)
	}
	// An insert after Close takes a connection again.
	as, _ := gatewayRows(1, 9)
	if err := s.InsertAttempts(ctx, as); err != nil {
		t.Errorf("insert after Close: %v", err)
	}
	s.Close()
}

// TestSQLiteInsertDropsConnectionLeftInTransaction: a kept connection
// found inside a transaction (here one opened on it by hand, as a failed
// rollback would leave it) fails that one insert and is let go, so the
// next insert runs on a fresh connection instead of every later BEGIN
// failing on it while it holds the write lock.
func TestSQLiteInsertDropsConnectionLeftInTransaction(t *testing.T) {
	db := testdb.SQLite(t).DB
	s := New(db)
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	as, _ := gatewayRows(3, 0)
	if err := s.InsertAttempts(ctx, as); err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.conn.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	as, _ = gatewayRows(3, 1)
	if err := s.InsertAttempts(ctx, as); err == nil {
		t.Fatal("insert on a connection inside a transaction succeeded")
	}
	if s.writer.conn != nil {
		t.Fatal("the connection left inside a transaction is still kept")
	}
	if err := s.InsertAttempts(ctx, as); err != nil {
		t.Fatalf("insert after the connection was let go: %v", err)
	}
	var n int64
	if err := db.Table("attempts").Count(&n).Error; err != nil || n != 6 {
		t.Errorf("attempts: %d rows, %v; want 6", n, err)
	}
}

// TestStoreCloseDoesNotWaitForInsert: Close returns while an insert holds
// the kept connection (one the writer gave up on at shutdown), and that
// insert gives the connection back to the pool as it returns.
func TestStoreCloseDoesNotWaitForInsert(t *testing.T) {
	db := testdb.SQLite(t).DB
	sdb, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	s := New(db)
	ctx := context.Background()
	as, _ := gatewayRows(3, 0)
	if err := s.InsertAttempts(ctx, as); err != nil {
		t.Fatal(err)
	}
	s.writer.mu.Lock() // an insert in flight
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		s.writer.mu.Unlock()
		t.Fatal("Close waited for the insert in flight")
	}
	s.writer.mu.Unlock()
	as, _ = gatewayRows(3, 1)
	if err := s.InsertAttempts(ctx, as); err != nil { // the in-flight insert's return, as with's tail sees it
		t.Fatal(err)
	}
	if s.writer.conn != nil {
		t.Error("a connection is kept after Close")
	}
	if n := sdb.Stats().InUse; n != 0 {
		t.Errorf("after Close and the insert: %d pooled connections in use, want 0", n)
	}
}

package sqlstore

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/internal/testdb"
)

// TestSQLiteLiteralsReadBackAsBound: rows written through the connection's
// handle (raw) and as SQL literals (the fallback) read back equal, value by
// value and storage class by storage class, to the same rows bound as
// parameters (through gorm), for strings with quotes, NULs and non-ASCII
// text, floats with and without a fraction, extreme floats and times in
// another zone with nanoseconds; and a batch longer than one statement
// keeps every row.
func TestSQLiteLiteralsReadBackAsBound(t *testing.T) {
	for _, raw := range []bool{true, false} {
		t.Run(map[bool]string{true: "raw", false: "literal"}[raw], func(t *testing.T) { testSQLiteReadBackAsBound(t, raw) })
	}
}

func testSQLiteReadBackAsBound(t *testing.T, raw bool) {
	db := testdb.SQLite(t).DB
	s := New(db)
	ctx := context.Background()
	zone := time.FixedZone("x", -(3*3600 + 30*60))
	tricky := []attemptRow{
		{OrgID: "o'rg", KeyID: "''", RequestID: "a\x00b", Model: "模型 🚀", Reason: "line\nbreak\t\\", LatencyMs: 100,
			TTFBMs: 1e-300, Time: time.Date(2026, 1, 2, 3, 4, 5, 123456789, zone), Status: -1, InputTokens: math.MaxInt64,
			OutputTokens: math.MinInt64, Stream: true},
		{OrgID: "", Reason: strings.Repeat("'", 5), LatencyMs: math.MaxFloat64, TTFBMs: -0.5, Time: time.Unix(0, 0).UTC()},
		{OrgID: "\x00", LatencyMs: math.SmallestNonzeroFloat64, TTFBMs: 12.5, Time: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)},
	}
	var literal, bound []attemptRow
	for i, r := range tricky {
		r.EventID = "lit-" + string(rune('a'+i))
		literal = append(literal, r)
		r.EventID = "bnd-" + string(rune('a'+i))
		bound = append(bound, r)
	}
	if err := s.attempts.insertVia(ctx, db, &s.writer, literal, raw); err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&bound).Error; err != nil {
		t.Fatal(err)
	}
	for i := range tricky {
		var got []attemptRow
		ids := []string{literal[i].EventID, bound[i].EventID}
		if err := db.Where("event_id IN ?", ids).Order("event_id DESC").Find(&got).Error; err != nil || len(got) != 2 {
			t.Fatalf("row %d: %d rows, %v", i, len(got), err)
		}
		got[0].EventID, got[1].EventID = "", ""
		if !reflect.DeepEqual(got[0], got[1]) {
			t.Errorf("row %d: literal %+v, bound %+v", i, got[0], got[1])
		}
		for _, col := range s.attempts.cols {
			var classes []string
			if err := db.Raw("SELECT typeof("+col+") FROM attempts WHERE event_id IN ? ORDER BY event_id DESC", ids).
				Scan(&classes).Error; err != nil || len(classes) != 2 || classes[0] != classes[1] {
				t.Errorf("row %d column %s: storage classes %v (literal, bound), %v", i, col, classes, err)
			}
		}
	}

	many := batchAttempts(3*sqliteRows+5, 1)
	if err := s.attempts.insertVia(ctx, db, &s.writer, many, raw); err != nil {
		t.Fatal(err)
	}
	if err := s.attempts.insertVia(ctx, db, &s.writer, many[:10], raw); err != nil { // known event ids are ignored
		t.Fatal(err)
	}
	var n int64
	if err := db.Model(&attemptRow{}).Where("event_id LIKE 'ev-1-%'").Count(&n).Error; err != nil || n != int64(len(many)) {
		t.Errorf("batch of %d rows: %d stored, %v", len(many), n, err)
	}
}

// TestSQLiteHandleReachable: the app's SQLite driver gives insert its
// connection's handle, so batches skip the literal statements' parsing (a
// driver upgrade that renames its fields fails here instead of silently
// costing the parse again).
func TestSQLiteHandleReachable(t *testing.T) {
	sdb, err := testdb.SQLite(t).DB.DB()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := sdb.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var ok bool
	if err := conn.Raw(func(dc any) error { _, _, ok = sqliteHandle(dc); return nil }); err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Error("sqliteHandle: the driver connection's db and tls fields were not found")
	}
	if _, _, ok := sqliteHandle(&struct{ db int }{}); ok {
		t.Error("sqliteHandle accepted a struct without the driver's fields")
	}
}

package sqlstore

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/internal/testdb"
)

// FuzzSQLiteRawReadsBackAsBound: attempt rows built from arbitrary values
// (any bytes in the strings, NULs and invalid UTF-8 included; any float,
// NaN and infinities included; any time and zone offset) written through
// the connection's handle (rawRows) read back, column by column, with the
// same storage class and bytes as the same rows bound through gorm. Each
// batch has a row whose text outgrows the C buffer between two small rows,
// so the buffer is reallocated while the statement still points into the
// old one. Times of any year are compared as stored; the driver parses
// back only years 0 to 9999 (in UTC and the row's zone). Run with -fuzz=FuzzSQLiteRawReadsBackAsBound for more than the
// seeds.
func FuzzSQLiteRawReadsBackAsBound(f *testing.F) {
	f.Add("o'rg", "a\x00b", 100, 12.5, -0.5, int64(42), int64(1767323045), int64(123456789), -(3*3600 + 30*60), true)
	f.Add("", "", 0, math.NaN(), math.Inf(1), int64(math.MinInt64), int64(0), int64(0), 0, false)
	f.Add("\xff\xfe", "模型 🚀", 5000, math.Inf(-1), math.SmallestNonzeroFloat64, int64(math.MaxInt64), int64(-62135596800), int64(999999999), 86399, false)
	f.Add("\x00", strings.Repeat("'", 70), 70000, math.MaxFloat64, -0.0, int64(-1), int64(253402300799), int64(1), -86399, true)
	db := testdb.SQLite(f).DB
	s := New(db)
	ctx := context.Background()
	n := 0
	f.Fuzz(func(t *testing.T, a, b string, big int, lat, ttfb float64, tokens, sec, nsec int64, off int, stream bool) {
		big = int(uint(big) % (1 << 17))
		zone := time.FixedZone("z", off%(100*3600))
		at := time.Unix(sec%(1<<40), nsec%1e9).In(zone)
		rows := []attemptRow{
			{OrgID: a, KeyID: b, Model: a + b, LatencyMs: lat, TTFBMs: ttfb, InputTokens: tokens, Time: at, Stream: stream},
			{OrgID: b, Reason: strings.Repeat("x"+a, big/(len(a)+1)), RequestID: a, LatencyMs: ttfb, Time: at.UTC(), Status: big},
			{OrgID: "", KeyID: a, LatencyMs: lat, OutputTokens: -tokens, Time: at.Add(time.Nanosecond)},
		}
		n++
		var raw, bound []attemptRow
		for i, r := range rows {
			r.EventID = fmt.Sprintf("fz-%d-%d-raw", n, i)
			raw = append(raw, r)
			r.EventID = fmt.Sprintf("fz-%d-%d-bnd", n, i)
			bound = append(bound, r)
		}
		// A NaN binds as NULL, which the NOT NULL float columns refuse,
		// on both paths alike.
		errRaw, errBound := s.attempts.insertVia(ctx, db, &s.writer, raw, true), db.Create(&bound).Error
		if (errRaw == nil) != (errBound == nil) {
			t.Fatalf("raw insert: %v; bound insert: %v", errRaw, errBound)
		}
		if errRaw != nil {
			return
		}
		for i := range rows {
			ids := []string{raw[i].EventID, bound[i].EventID}
			for _, col := range s.attempts.cols {
				if col == "event_id" {
					continue
				}
				var got []struct{ Class, Hex, Quoted string }
				if err := db.Raw("SELECT typeof("+col+") AS class, hex("+col+") AS hex, quote("+col+") AS quoted "+
					"FROM attempts WHERE event_id IN ? ORDER BY event_id DESC", ids).Scan(&got).Error; err != nil || len(got) != 2 {
					t.Fatalf("row %d column %s: %d rows, %v", i, col, len(got), err)
				}
				if got[0] != got[1] {
					t.Errorf("row %d column %s: raw %+v, bound %+v", i, col, got[0], got[1])
				}
			}
			if y, u := rows[i].Time.Year(), rows[i].Time.UTC().Year(); min(y, u) < 0 || max(y, u) > 9999 {
				continue // stored alike (above), but the driver reads back only 4-digit years
			}
			var back []attemptRow
			if err := db.Where("event_id IN ?", ids).Order("event_id DESC").Find(&back).Error; err != nil || len(back) != 2 {
				t.Fatalf("row %d: %d rows, %v", i, len(back), err)
			}
			back[0].EventID, back[1].EventID = "", ""
			if !reflect.DeepEqual(back[0], back[1]) {
				t.Errorf("row %d: raw %+v, bound %+v", i, back[0], back[1])
			}
		}
	})
}

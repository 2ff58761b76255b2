package clickhouse

import (
	"context"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/heddle-gw/heddle/analytics"
)

// Duplicates are refused at ingest, so reads need no FINAL (which costs 4-14x
// on ClickHouse 18.16) and the rollups, fed by the same inserts, never count a
// row twice. A duplicate is a row replayed from a spill segment (or retried)
// after its first insert landed: before each insert the Store asks which of
// the batch's event ids the table already holds, looking only at the batch's
// organisations and time span (the table's key), and drops those rows and
// repeats inside the batch. ReplacingMergeTree stays as the backstop for a
// replay racing its own first insert.

// rowKey is what the ingest check needs of a row.
type rowKey struct {
	org, event string
	at         time.Time
}

// idChunk bounds the event ids one stored-ids query names (client-side
// binding inlines them; ClickHouse's max_query_size is 256 KiB).
const idChunk = 2000

// fresh returns the indexes of keys whose event is neither stored in table
// nor an earlier row of the same batch, in order. It names the batch's event
// ids, so what it reads and returns is bounded by the batch, not by the
// traffic in the batch's time span.
func (s *Store) fresh(ctx context.Context, table string, keys []rowKey) ([]int, error) {
	seen := map[string]struct{}{}
	for start := 0; start < len(keys); start += idChunk {
		if err := s.stored(ctx, table, keys[start:min(start+idChunk, len(keys))], seen); err != nil {
			return nil, err
		}
	}
	keep := make([]int, 0, len(keys))
	for i, k := range keys {
		if _, dup := seen[k.event]; dup {
			continue
		}
		seen[k.event] = struct{}{}
		keep = append(keep, i)
	}
	return keep, nil
}

// stored adds to seen the event ids of keys that table already holds.
func (s *Store) stored(ctx context.Context, table string, keys []rowKey, seen map[string]struct{}) error {
	orgs := map[string]struct{}{}
	ids := make([]any, 0, len(keys))
	lo, hi := keys[0].at, keys[0].at
	for _, k := range keys {
		orgs[k.org] = struct{}{}
		ids = append(ids, k.event)
		lo, hi = minTime(lo, k.at), maxTime(hi, k.at)
	}
	set := make([]any, 0, len(orgs))
	for o := range orgs {
		set = append(set, o)
	}
	rows, err := s.conn.Query(ctx, "SELECT event_id FROM "+table+
		" WHERE org_id IN ? AND time >= toDateTime(?) AND time <= toDateTime(?) AND event_id IN ?",
		ch.GroupSet{Value: set}, lo.Unix(), hi.Unix(), ch.GroupSet{Value: ids})
	if err != nil {
		return readErr("check stored "+table, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return readErr("scan stored "+table, err)
		}
		seen[id] = struct{}{}
	}
	if err := rows.Err(); err != nil {
		return readErr("read stored "+table, err)
	}
	return nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// attemptKeys and requestKeys extract the ingest check's keys of cleaned rows.
func attemptKeys(rows []analytics.Attempt) []rowKey {
	out := make([]rowKey, len(rows))
	for i, a := range rows {
		out[i] = rowKey{org: a.OrgID, event: a.EventID, at: analytics.Millis(a.Time)}
	}
	return out
}

func requestKeys(rows []analytics.Request) []rowKey {
	out := make([]rowKey, len(rows))
	for i, r := range rows {
		out[i] = rowKey{org: r.OrgID, event: r.EventID, at: analytics.Millis(r.Time)}
	}
	return out
}

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
// repeats inside the batch. The Writer's first try of a batch skips the
// question (InsertFresh*: rows never sent cannot be stored); its retries
// and replays ask. ReplacingMergeTree stays as the backstop for a replay
// racing its own first insert.

// rowKey is what the ingest check needs of a row.
type rowKey struct {
	org, event string
	at         time.Time
}

// idChunk bounds the event ids one stored-ids query names (client-side
// binding inlines them; ClickHouse's max_query_size is 256 KiB).
const idChunk = 2000

// unique returns the indexes of keys whose event is neither stored in table
// (when check is set) nor an earlier row of the same batch, in order. The
// check names the batch's event ids, so what it reads and returns is
// bounded by the batch, not by the traffic in the batch's time span. A
// batch whose rows were never handed to the Store before (the Writer's
// first try of it; see analytics.FreshInserter) needs no check: ClickHouse
// cannot hold rows it was never sent.
func (s *Store) unique(ctx context.Context, table string, keys []rowKey, check bool) ([]int, error) {
	seen := make(map[string]struct{}, len(keys))
	for start := 0; check && start < len(keys); start += idChunk {
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

// A failed request counts once per failure reason (the dashboard's and
// reports' distinct failed requests): on the one attempt row per (request,
// reason) whose counts_request is 1, its first attempt with that reason
// (first inserted: attempts arrive in order from the process serving them),
// so the rollups (migration 00015) count distinct requests as a plain sum.
// The mark is decided here, where the stored rows are known: a pair already
// marked in the table (an earlier batch held one of the request's attempts)
// is not marked again, and of a batch's rows of one pair the earliest is.
// Replays never reach this point (unique drops them first), so a mark is
// never written twice. One Store inserts a process's attempts one batch at
// a time (the analytics.Writer's sender), and a request's attempts come from
// the process that served it.

// reasonKey is one (request, failure reason) pair.
type reasonKey struct{ request, reason string }

// marks returns, for the rows[keep] to insert, which count their request
// under their reason (indexed as rows).
func (s *Store) marks(ctx context.Context, rows []analytics.Attempt, keep []int) (map[int]bool, error) {
	first := map[reasonKey]int{} // the batch's earliest row of each pair
	for _, i := range keep {
		a := rows[i]
		if a.Reason == "" {
			continue
		}
		k := reasonKey{a.RequestID, a.Reason}
		if j, ok := first[k]; !ok || earlier(a, rows[j]) {
			first[k] = i
		}
	}
	if len(first) == 0 {
		return nil, nil
	}
	pairs := make([]reasonKey, 0, len(first))
	for k := range first {
		pairs = append(pairs, k)
	}
	for start := 0; start < len(pairs); start += idChunk {
		chunk := pairs[start:min(start+idChunk, len(pairs))]
		if err := s.marked(ctx, rows, first, chunk); err != nil {
			return nil, err
		}
	}
	out := make(map[int]bool, len(first))
	for _, i := range first {
		out[i] = true
	}
	return out, nil
}

// earlier orders one pair's attempts: by time, then attempt index.
func earlier(a, b analytics.Attempt) bool {
	if !a.Time.Equal(b.Time) {
		return a.Time.Before(b.Time)
	}
	return a.AttemptIndex < b.AttemptIndex
}

// marked deletes from first the pairs of chunk the table holds a marked row
// of. A request's attempts lie between its arrival (its UUIDv7 id's time,
// less replicas' skew) and its end, so the query reads the chunk's
// organisations from the earliest arrival on; an id that carries no time
// looks back a day (the timeline's widest span).
func (s *Store) marked(ctx context.Context, rows []analytics.Attempt, first map[reasonKey]int, chunk []reasonKey) error {
	orgs := map[string]struct{}{}
	ids := make([]any, 0, len(chunk))
	var lo, hi time.Time
	for n, k := range chunk {
		a := rows[first[k]]
		orgs[a.OrgID] = struct{}{}
		ids = append(ids, k.request)
		from := analytics.Millis(a.Time).Add(-timelineSpans[len(timelineSpans)-1])
		if at, ok := requestTime(k.request); ok {
			from = minTime(at, analytics.Millis(a.Time)).Add(-timelineSkew)
		}
		at := analytics.Millis(a.Time).Add(timelineSkew)
		if n == 0 {
			lo, hi = from, at
		}
		lo, hi = minTime(lo, from), maxTime(hi, at)
	}
	set := make([]any, 0, len(orgs))
	for o := range orgs {
		set = append(set, o)
	}
	q, err := s.conn.Query(ctx, "SELECT DISTINCT request_id, reason FROM attempts"+
		" PREWHERE request_id IN ? WHERE org_id IN ? AND time >= toDateTime(?) AND time <= toDateTime(?) AND counts_request = 1",
		ch.GroupSet{Value: ids}, ch.GroupSet{Value: set}, max(lo.Unix(), 0), hi.Unix())
	if err != nil {
		return readErr("check marked attempts", err)
	}
	defer q.Close()
	for q.Next() {
		var k reasonKey
		if err := q.Scan(&k.request, &k.reason); err != nil {
			return readErr("scan marked attempts", err)
		}
		delete(first, k)
	}
	if err := q.Err(); err != nil {
		return readErr("read marked attempts", err)
	}
	return nil
}

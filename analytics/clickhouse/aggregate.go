package clickhouse

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/heddle-gw/heddle/analytics"
)

const failed = "(error_code != '' OR status >= 400)"

// Summary implements analytics.Reader. The counts and sums are the groups
// by route kind added up (a handful of rows of the hourly rollup, see
// EachBreakdown). The percentiles of up to exactQuantileRows requests are
// exact: quantilesExact over the raw rows (its index rule is
// analytics.QuantileIndex). Those of more, over a range the latency
// histogram covers hours of (migration 00012), are read from its buckets
// (within 1%, see histogramPercentiles), the partial hours at the edges
// bucketed the same way from the raw rows: the dashboard of a busy
// organisation reads histogram rows, not its requests.
func (s *Store) Summary(ctx context.Context, orgID string, from, to time.Time) (analytics.Summary, error) {
	w, err := scope(orgID, from, to)
	if err != nil {
		return analytics.Summary{}, err
	}
	var sum analytics.Summary
	if err := s.EachBreakdown(ctx, orgID, analytics.BreakdownQuery{From: from, To: to, By: analytics.DimRouteKind},
		func(r analytics.BreakdownRow) error {
			sum.Requests += r.Requests
			sum.Errors += r.Errors
			sum.CacheHits += r.CacheHits
			sum.InputTokens += r.InputTokens
			sum.OutputTokens += r.OutputTokens
			sum.CostMicros += r.CostMicros
			sum.BaselineMicros += r.BaselineMicros
			sum.SavingsMicros += r.SavingsMicros
			return nil
		}); err != nil {
		return analytics.Summary{}, err
	}
	if sum.Requests == 0 {
		return sum, nil
	}
	var (
		lat, ttfb []float64
		nTTFB     uint64
		rolled    span
		raw       []span
	)
	if sum.Requests > s.exactQuantiles {
		fromMs, toMs, _ := analytics.RangeMillis(from, to)
		if rolled, raw, err = s.split(ctx, fromMs, toMs, latencyHistogram); err != nil {
			return analytics.Summary{}, err
		}
	}
	if rolled.ok {
		if lat, ttfb, nTTFB, err = s.histogramPercentiles(ctx, analytics.CleanText(orgID), rolled, raw); err != nil {
			return analytics.Summary{}, err
		}
	} else {
		q := analytics.Quantiles
		levels := fmt.Sprintf("%g, %g, %g", q[0], q[1], q[2])
		query := "SELECT quantilesExact(" + levels + ")(latency_ms), quantilesExactIf(" + levels + ")(ttfb_ms, ttfb_ms > 0)," +
			" countIf(ttfb_ms > 0) FROM requests" + w.String()
		if err := s.conn.QueryRow(s.readCtx(ctx), query, w.args...).Scan(&lat, &ttfb, &nTTFB); err != nil {
			return analytics.Summary{}, readErr("summary", err)
		}
	}
	if len(lat) == 3 {
		sum.LatencyP50, sum.LatencyP95, sum.LatencyP99 = lat[0], lat[1], lat[2]
	}
	if nTTFB > 0 && len(ttfb) == 3 {
		sum.TTFBP50, sum.TTFBP95, sum.TTFBP99 = ttfb[0], ttfb[1], ttfb[2]
	}
	sum.Rates()
	return sum, nil
}

// exactQuantileRows is how many requests a Summary's percentiles are exact
// for (quantilesExact reads their latencies: tens of milliseconds).
const exactQuantileRows = 100_000

// latencyHistogram is the hourly latency histogram (migration 00012); it
// answers for no dimension.
var latencyHistogram = rollup{"requests_hourly_latency", "hour", hourMs, nil, nil}

// Histogram buckets (migration 00012, whose view uses the same expression):
// bucket 0 holds values under 1 ms, bucket b >= 1 holds [base^(b-1),
// base^b) ms.
const (
	histogramBase = 1.02
	// latencyKind is a raw row's value of the histogram's kind column.
	latencyKind  = "if(kind = 0, latency_ms, ttfb_ms)"
	bucketOfKind = "if(" + latencyKind + " < 1, toUInt16(0), toUInt16(least(floor(log(" + latencyKind + ") / log(1.02)) + 1, 65535)))"
)

// histogramPercentiles reads the latency and TTFB percentiles of org's rows
// in rolled (from the histogram) and raw (bucketed the same way): each is
// the geometric middle of the bucket holding the value of the index
// analytics.QuantileIndex names, within 1% of the exact value (0.5 ms
// under 1 ms). n is the number of TTFB values.
func (s *Store) histogramPercentiles(ctx context.Context, org string, rolled span, raw []span) (lat, ttfb []float64, n uint64, err error) {
	w := latencyHistogram.where(org, rolled)
	parts := []string{"SELECT kind, bucket, sum(n) AS c FROM requests_hourly_latency" + w.String() + " GROUP BY kind, bucket"}
	args := w.args
	for _, sp := range raw {
		rw := &where{}
		rw.add("org_id = ?", org)
		rw.timeRange(sp.from, sp.to)
		rw.add("(kind = 0 OR ttfb_ms > 0)")
		parts = append(parts, "SELECT kind, "+bucketOfKind+" AS bucket, count() AS c FROM requests ARRAY JOIN [0, 1] AS kind"+
			rw.String()+" GROUP BY kind, bucket")
		args = append(args, rw.args...)
	}
	query := "SELECT kind, bucket, sum(c) FROM (" + strings.Join(parts, " UNION ALL ") + ") GROUP BY kind, bucket ORDER BY kind, bucket"
	rows, err := s.conn.Query(s.readCtx(ctx), query, args...)
	if err != nil {
		return nil, nil, 0, readErr("latency histogram", err)
	}
	defer rows.Close()
	var hist [2][]bucketCount
	for rows.Next() {
		var (
			kind   uint8
			bucket uint16
			c      uint64
		)
		if err := rows.Scan(&kind, &bucket, &c); err != nil {
			return nil, nil, 0, fmt.Errorf("clickhouse: scan latency histogram: %w", err)
		}
		if kind < 2 {
			hist[kind] = append(hist[kind], bucketCount{bucket, c})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, 0, readErr("read latency histogram", err)
	}
	for _, b := range hist[1] {
		n += b.n
	}
	return bucketQuantiles(hist[0]), bucketQuantiles(hist[1]), n, nil
}

// bucketCount is one histogram bucket's count.
type bucketCount struct {
	bucket uint16
	n      uint64
}

// bucketQuantiles returns analytics.Quantiles' values of the histogram hist
// (ascending buckets); nil for none.
func bucketQuantiles(hist []bucketCount) []float64 {
	var total uint64
	for _, b := range hist {
		total += b.n
	}
	if total == 0 {
		return nil
	}
	out := make([]float64, 0, len(analytics.Quantiles))
	for _, q := range analytics.Quantiles {
		idx := uint64(analytics.QuantileIndex(q, int64(total)))
		var seen uint64
		for _, b := range hist {
			if seen += b.n; seen > idx {
				out = append(out, bucketValue(b.bucket))
				break
			}
		}
	}
	return out
}

// bucketValue is the value a bucket stands for: its geometric middle.
func bucketValue(b uint16) float64 {
	if b == 0 {
		return 0.5
	}
	return math.Pow(histogramBase, float64(b)-0.5)
}

// scope is the WHERE clause of an organisation's rows in [from, to).
func scope(orgID string, from, to time.Time) (*where, error) {
	if err := analytics.CheckOrg(orgID); err != nil {
		return nil, err
	}
	fromMs, toMs, err := analytics.RangeMillis(from, to)
	if err != nil {
		return nil, err
	}
	w := &where{}
	w.add("org_id = ?", analytics.CleanText(orgID))
	w.timeRange(fromMs, toMs)
	return w, nil
}

// groupExpr is the String expression each request dimension groups by.
var groupExpr = map[analytics.Dimension]string{
	analytics.DimDay:           "toString(intDiv(time_ms, " + strconv.FormatInt(analytics.DayMillis, 10) + "))",
	analytics.DimModel:         "served_model",
	analytics.DimKey:           "key_id",
	analytics.DimUser:          "end_user",
	analytics.DimRouteKind:     "route_kind",
	analytics.DimFailureReason: "reason",
	// A request counts under each of its tags (untagged under "").
	analytics.DimTag: "arrayJoin(if(tags = '', [''], splitByChar(',', tags)))",
}

// Breakdown implements analytics.Reader.
func (s *Store) Breakdown(ctx context.Context, orgID string, from, to time.Time, by analytics.Dimension) ([]analytics.BreakdownRow, error) {
	return analytics.CollectBreakdown(ctx, s, orgID, from, to, by)
}

// Per-group columns of a request breakdown's parts, summed again over the
// parts: requests, errors, cache hits, attempts, tokens, money, latency sum.
const (
	rawParts = "count() AS p_n, countIf(" + failed + ") AS p_e, countIf(cache_hit = 1) AS p_h," +
		" sum(toInt64(attempts)) AS p_a, sum(input_tokens) AS p_i, sum(output_tokens) AS p_o, sum(cost_micros) AS p_c," +
		" sum(baseline_micros) AS p_b, sum(savings_micros) AS p_s, sum(latency_ms) AS p_l"
	// A rollup's rows enter the outer grouping as they are: one hash
	// aggregation of its (up to a hundred thousand) keys, not two.
	rollupParts = "requests AS p_n, errors AS p_e, cache_hits AS p_h, attempts AS p_a, input_tokens AS p_i," +
		" output_tokens AS p_o, cost_micros AS p_c, baseline_micros AS p_b, savings_micros AS p_s, latency_sum AS p_l"
	mergedParts = "sum(p_n) AS requests, sum(p_e), sum(p_h), sum(p_a), sum(p_i), sum(p_o), sum(p_c), sum(p_b), sum(p_s)," +
		" sum(p_l) / sum(p_n)"
	// Failure reasons: attempts, cost and the distinct failed requests,
	// summed over the parts. A request counts under a reason on its first
	// attempt with it, which the Store marks at ingest (counts_request 1;
	// 2 on its other attempts with it; migration 00015), so the rollups and
	// the raw rows sum the marks. Rows inserted before the marks existed
	// (counts_request 0) count their distinct request ids in each part.
	rawReasonParts = "count() AS p_a, sum(cost_micros) AS p_c," +
		" toUInt64(countIf(counts_request = 1) + uniqExactIf(request_id, counts_request = 0)) AS p_r"
	mergedReasonParts = "sum(p_a) AS attempts, sum(p_r), sum(p_c)"
	rollupReasonParts = "attempts AS p_a, cost_micros AS p_c, requests AS p_r"
)

// streamBlockRows bounds the rows of one block ClickHouse sends while a
// breakdown streams, so a caller holds a few thousand rows at most. The
// sort emits blocks that small only from a two-level grouping (its result
// in buckets, merged block by block), which ClickHouse uses from
// group_by_two_level_threshold keys on: twoLevelKeys. With its default
// (100,000) a report of 100,000 users arrived as one sorted block of
// 100,000 rows, which the driver decoded at once.
const (
	streamBlockRows = 4096
	twoLevelKeys    = 1000
)

// EachBreakdown implements analytics.Reader. The rollup of the dimension
// (rollup.go) answers for the whole grains of the range it covers and the
// raw table for the rest; ClickHouse merges the parts by key, orders and
// windows them, and the rows reach fn as its blocks arrive. A window of a
// dimension with many groups (users) is read in two phases: the groups are
// ranked by their requests alone (two columns of the rollup), then every
// column is summed for the window's keys only (the rollup's sort key
// finds them).
func (s *Store) EachBreakdown(ctx context.Context, orgID string, q analytics.BreakdownQuery, fn func(analytics.BreakdownRow) error) error {
	if err := analytics.CheckOrg(orgID); err != nil {
		return err
	}
	if err := q.Check(); err != nil {
		return err
	}
	org := analytics.CleanText(orgID)
	var shape breakdownShape
	if q.Limit > 0 && q.By == analytics.DimUser {
		w, err := s.rankUsers(ctx, org, q)
		if err != nil {
			return err
		}
		switch {
		case w.empty:
			return nil
		case w.ok:
			shape.onlyHash, q.Offset = w.hashes, w.offset
		default: // a hash collision or too many ties: rank the strings
			keys, err := s.rankKeys(ctx, org, q)
			if err != nil || len(keys) == 0 {
				return err
			}
			shape.only, q.Offset, q.Limit = keys, 0, 0
		}
	}
	query, args, err := s.breakdownQuery(ctx, org, q, shape)
	if err != nil {
		return err
	}
	what := "breakdown by " + string(q.By)
	ctx, cancel := context.WithCancel(ctx)
	rows, err := s.conn.Query(s.readCtxWith(ctx, ch.Settings{"max_block_size": streamBlockRows,
		"group_by_two_level_threshold": twoLevelKeys, "max_query_size": maxQueryBytes}), query, args...)
	if err != nil {
		cancel()
		return readErr(what, err)
	}
	// Cancel before Close: a caller that stops early (a client that left)
	// ends the query instead of draining it.
	defer func() { cancel(); _ = rows.Close() }()
	for rows.Next() {
		r, err := scanBreakdown(rows, q.By)
		if err != nil {
			return fmt.Errorf("clickhouse: scan %s: %w", what, err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return readErr("read "+what, err)
	}
	return nil
}

// rankKeys returns the keys of q's window, ranked as the breakdown orders
// its groups, from the request counts alone.
func (s *Store) rankKeys(ctx context.Context, org string, q analytics.BreakdownQuery) ([]any, error) {
	query, args, err := s.breakdownQuery(ctx, org, q, breakdownShape{rank: true})
	if err != nil {
		return nil, err
	}
	rows, err := s.conn.Query(s.readCtx(ctx), query, args...)
	if err != nil {
		return nil, readErr("rank by "+string(q.By), err)
	}
	defer rows.Close()
	var keys []any
	for rows.Next() {
		var k string
		var n uint64
		if err := rows.Scan(&k, &n); err != nil {
			return nil, fmt.Errorf("clickhouse: scan rank by %s: %w", q.By, err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, readErr("read rank by "+string(q.By), err)
	}
	return keys, nil
}

// breakdownShape varies a breakdown's query: rank reads the request counts
// alone; only (when set) restricts the groups to those keys, onlyHash (by
// user) to the users of those userHash values.
type breakdownShape struct {
	rank     bool
	only     []any
	onlyHash []any
}

// The integer keys of an end user (migration 00017's view computes the
// same): the rank groups by userHash; two users whose userHash collides
// differ in userCheck.
const (
	userHash  = "cityHash64(end_user)"
	userCheck = "sipHash64(end_user)"
)

// maxRankTies bounds the hashes the sum pass's SQL may hold: the users a
// window's rank pass leaves to it (those whose request counts are within
// the window's) times its parts (a rollup's or a raw span's, each with
// the hashes as its PREWHERE), at most maxQueryBytes of SQL (20 digits, a
// comma and a space each).
const (
	maxRankTies   = 40_000
	maxQueryBytes = 1 << 20
)

// rankWindow is what the integer rank pass tells of q's window: empty, no
// user is in it; ok, its users are those of hashes, from offset on in the
// breakdown's order (requests DESC, key); neither, rank by the strings.
type rankWindow struct {
	empty, ok bool
	hashes    []any
	offset    int
}

// rankUsers ranks org's users for q's window by integers (migration 00017's
// requests_weekly_user_rank for its whole weeks, the user rollups and the
// raw rows hashed on the fly for the rest): grouped by userHash, it sorts
// the request counts and returns the hashes of the users whose counts lie
// between the window's first and last (ties included, whose order needs
// their names) and how many users rank above them. A userHash with two
// userCheck values (a collision), or more hashes times the sum pass's parts
// than s.rankTies (its SQL would exceed maxQueryBytes), answers neither
// empty nor ok.
func (s *Store) rankUsers(ctx context.Context, org string, q analytics.BreakdownQuery) (rankWindow, error) {
	fromMs, toMs, _ := analytics.RangeMillis(q.From, q.To)
	rolled, rawSpans, err := s.plan(ctx, fromMs, toMs, weeklyUserRank)
	if err != nil {
		return rankWindow{}, err
	}
	var (
		parts []string
		args  []any
	)
	for _, p := range rolled {
		cols := userHash + " AS h, " + userCheck + " AS c, requests AS p_n"
		if p.r.table == weeklyUserRank.table {
			cols = "user_hash AS h, user_check AS c, requests AS p_n"
		}
		w := p.r.where(org, p.sp)
		parts = append(parts, "SELECT "+cols+" FROM "+p.r.table+w.String())
		args = append(args, w.args...)
	}
	for _, sp := range rawSpans {
		w := &where{}
		w.add("org_id = ?", org)
		w.timeRange(sp.from, sp.to)
		parts = append(parts, "SELECT "+userHash+" AS h, "+userCheck+" AS c, count() AS p_n FROM requests"+w.String()+" GROUP BY h, c")
		args = append(args, w.args...)
	}
	// s holds the counts in descending order (1-based): the window's first
	// is s[first], its last s[last].
	first, last := strconv.Itoa(q.Offset+1), strconv.Itoa(q.Offset+q.Limit)
	query := "SELECT length(s), toUInt64(arrayCount(x -> x > s[" + first + "], s))," +
		" arrayMap(t -> tupleElement(t, 1), arrayFilter(t -> tupleElement(t, 2) >= s[least(" + last + ", length(s))]" +
		" AND tupleElement(t, 2) <= s[" + first + "], p)), collisions" +
		" FROM (SELECT arrayReverseSort(groupArray(n)) AS s, groupArray((h, n)) AS p, countIf(c1 != c2) AS collisions" +
		" FROM (SELECT h, sum(p_n) AS n, min(c) AS c1, max(c) AS c2 FROM (" + strings.Join(parts, " UNION ALL ") + ") GROUP BY h))"
	var (
		users, above, collisions uint64
		hashes                   []uint64
	)
	if err := s.conn.QueryRow(s.readCtx(ctx), query, args...).Scan(&users, &above, &hashes, &collisions); err != nil {
		return rankWindow{}, readErr("rank by user", err)
	}
	switch {
	case collisions > 0: // users counts the hashes, fewer than the users
		return rankWindow{}, nil
	case users <= uint64(q.Offset):
		return rankWindow{empty: true}, nil
	case len(hashes)*len(parts) > s.rankTies: // the sum pass has the same parts
		return rankWindow{}, nil
	}
	w := rankWindow{ok: true, offset: q.Offset - int(above), hashes: make([]any, len(hashes))}
	for i, h := range hashes {
		w.hashes[i] = h
	}
	return w, nil
}

// breakdownQuery is the SQL of q over org's rows: a UNION ALL of the
// rollup's part and the raw parts, grouped by key, ordered and windowed.
func (s *Store) breakdownQuery(ctx context.Context, org string, q analytics.BreakdownQuery, shape breakdownShape) (string, []any, error) {
	fromMs, toMs, _ := analytics.RangeMillis(q.From, q.To)
	table, raw, rolledCols, merged, order := "requests", rawParts, rollupParts, mergedParts, "requests DESC, k"
	expr := groupExpr[q.By]
	switch q.By {
	case analytics.DimFailureReason:
		table, raw, rolledCols, merged, order = "attempts", rawReasonParts, rollupReasonParts, mergedReasonParts, "attempts DESC, k"
	case analytics.DimDay:
		order = "toInt64(k)"
	}
	if shape.rank {
		raw, rolledCols, merged = "count() AS p_n", "requests AS p_n", "sum(p_n) AS requests"
	}
	var (
		rolled []rolledPart
		parts  []string
		args   []any
	)
	rawSpans := []span{{from: fromMs, to: toMs, ok: true}}
	if r, ok := rollupFor(q.By); ok { // tags have no rollup: read raw
		if shape.onlyHash != nil {
			r = weeklyUserRank // finds the users by their hashes' column
		}
		var err error
		if rolled, rawSpans, err = s.plan(ctx, fromMs, toMs, r); err != nil {
			return "", nil, err
		}
	}
	// The window's keys are the PREWHERE: ClickHouse reads the key column
	// first and the others only where it passes (a page of 26 users of
	// 100,000 summed in 30% less time than with the keys in the WHERE,
	// which 18.16 left there).
	only := func(table, col string) *where {
		pre := &where{}
		switch {
		case shape.only != nil:
			pre.add(col+" IN ?", ch.GroupSet{Value: shape.only})
		case shape.onlyHash != nil && table == weeklyUserRank.table:
			pre.add("user_hash IN ?", ch.GroupSet{Value: shape.onlyHash})
		case shape.onlyHash != nil: // by user: col is end_user
			pre.add(userHash+" IN ?", ch.GroupSet{Value: shape.onlyHash})
		}
		return pre
	}
	for _, p := range rolled {
		w, pre := p.r.where(org, p.sp), only(p.r.table, p.r.expr[q.By])
		parts = append(parts, "SELECT "+p.r.expr[q.By]+" AS k, "+rolledCols+" FROM "+p.r.table+pre.prewhere()+w.String())
		args = append(append(args, pre.args...), w.args...)
	}
	for _, sp := range rawSpans {
		w, pre := &where{}, only(table, expr)
		w.add("org_id = ?", org)
		w.timeRange(sp.from, sp.to)
		if q.By == analytics.DimFailureReason {
			w.add("reason != ''")
		}
		parts = append(parts, "SELECT "+expr+" AS k, "+raw+" FROM "+table+pre.prewhere()+w.String()+" GROUP BY k")
		args = append(append(args, pre.args...), w.args...)
	}
	query := "SELECT k, " + merged + " FROM (" + strings.Join(parts, " UNION ALL ") + ") GROUP BY k ORDER BY " + order +
		limitClause(q)
	return query, args, nil
}

// scanBreakdown reads one merged row; day keys (day numbers) are formatted.
func scanBreakdown(rows driver.Rows, by analytics.Dimension) (analytics.BreakdownRow, error) {
	var r analytics.BreakdownRow
	if by == analytics.DimFailureReason {
		var n, reqs uint64
		if err := rows.Scan(&r.Key, &n, &reqs, &r.CostMicros); err != nil {
			return r, err
		}
		r.Attempts, r.Requests = int64(n), int64(reqs)
		return r, nil
	}
	var n, errs, hits uint64
	if err := rows.Scan(&r.Key, &n, &errs, &hits, &r.Attempts, &r.InputTokens, &r.OutputTokens, &r.CostMicros,
		&r.BaselineMicros, &r.SavingsMicros, &r.LatencyMeanMs); err != nil {
		return r, err
	}
	r.Requests, r.Errors, r.CacheHits = int64(n), int64(errs), int64(hits)
	if by == analytics.DimDay {
		d, err := strconv.ParseInt(r.Key, 10, 64)
		if err != nil {
			return r, fmt.Errorf("day key %q: %w", r.Key, err)
		}
		r.Key = analytics.DayKey(d)
	}
	return r, nil
}

package web

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/tenancy"
)

// Cost report bounds and defaults (SPEC §9).
const (
	// ReportDefaultDays is the default period: the last 30 UTC days, today
	// included.
	ReportDefaultDays = 30
	// ReportMaxDays bounds a report's period.
	ReportMaxDays = 366
)

// reportGroups maps a report's group parameter to the Breakdown dimension.
var reportGroups = []struct {
	name string
	dim  analytics.Dimension
}{
	{"day", analytics.DimDay},
	{"model", analytics.DimModel},
	{"key", analytics.DimKey},
	{"user", analytics.DimUser},
	{"route", analytics.DimRouteKind},
	{"tag", analytics.DimTag},
}

// ReportGroups lists the valid values of a cost report's group parameter.
var ReportGroups = func() []string {
	out := make([]string, len(reportGroups))
	for i, g := range reportGroups {
		out[i] = g.name
	}
	return out
}()

// costQuery is a parsed cost report request. From and To are UTC dates, both
// included.
type costQuery struct {
	From, To time.Time
	Group    string
	Dim      analytics.Dimension
	Format   string // csv or json
	Offset   int    // the first group of a page
	Limit    int    // groups per page; 0: every group (the API's whole report)
}

// FromDate and ToDate are the period's bounds as YYYY-MM-DD.
func (q costQuery) FromDate() string { return q.From.Format(time.DateOnly) }
func (q costQuery) ToDate() string   { return q.To.Format(time.DateOnly) }

// filename is the CSV attachment's name.
func (q costQuery) filename() string {
	return "heddle-cost-" + q.Group + "-" + q.FromDate() + "-" + q.ToDate() + ".csv"
}

func badParam(field, msg string) error { return &tenancy.ValidationError{Field: field, Message: msg} }

// parseCostQuery reads from, to, group and format with get (a query or form
// lookup); empty values take the defaults relative to now. Errors are
// *tenancy.ValidationError naming the parameter.
func parseCostQuery(get func(string) string, now time.Time) (costQuery, error) {
	today := now.UTC().Truncate(24 * time.Hour)
	q := costQuery{To: today, Group: "day", Format: "json"}
	var err error
	if s := get("to"); s != "" {
		if q.To, err = time.Parse(time.DateOnly, s); err != nil {
			return q, badParam("to", "must be a date as YYYY-MM-DD")
		}
	}
	q.From = q.To.AddDate(0, 0, 1-ReportDefaultDays)
	if s := get("from"); s != "" {
		if q.From, err = time.Parse(time.DateOnly, s); err != nil {
			return q, badParam("from", "must be a date as YYYY-MM-DD")
		}
	}
	if q.To.Before(q.From) {
		return q, badParam("to", "must not be before from")
	}
	if days := int(q.To.Sub(q.From)/(24*time.Hour)) + 1; days > ReportMaxDays {
		return q, badParam("to", "the period must be at most "+strconv.Itoa(ReportMaxDays)+" days")
	}
	if s := get("group"); s != "" {
		q.Group = s
	}
	for _, g := range reportGroups {
		if g.name == q.Group {
			q.Dim = g.dim
		}
	}
	if q.Dim == "" {
		return q, badParam("group", "must be one of "+strings.Join(ReportGroups, ", "))
	}
	if s := get("format"); s != "" {
		q.Format = s
	}
	if s := get("offset"); s != "" {
		if q.Offset, err = strconv.Atoi(s); err != nil || q.Offset < 0 {
			return q, badParam("offset", "must be a whole number, 0 or more")
		}
	}
	if s := get("limit"); s != "" {
		if q.Limit, err = strconv.Atoi(s); err != nil || q.Limit < 1 || q.Limit > ReportMaxPageRows {
			return q, badParam("limit", "must be a whole number from 1 to "+strconv.Itoa(ReportMaxPageRows))
		}
	}
	if q.Format != "csv" && q.Format != "json" {
		return q, badParam("format", "must be csv or json")
	}
	return q, nil
}

// ReportPageRows is how many groups the console's report shows at once;
// the others are summed in an "other" row and reached by paging.
const ReportPageRows = 25

// ReportMaxPageRows bounds the admin API's limit parameter.
const ReportMaxPageRows = 1000

// costPage is one page of a report: the groups [Offset, Offset+len(Rows)),
// the period's totals and the groups not on the page summed as Other.
type costPage struct {
	Query  costQuery
	Offset int
	Rows   []analytics.BreakdownRow
	More   bool // groups follow the page
	Totals analytics.BreakdownRow
	Other  analytics.BreakdownRow
}

// breakdownQuery is the Reader's query of q's period and group.
func (q costQuery) breakdownQuery() analytics.BreakdownQuery {
	return analytics.BreakdownQuery{From: q.From, To: q.To.AddDate(0, 0, 1), By: q.Dim}
}

// reportTotals sums the period's requests. Whatever the report's group, it
// sums the groups by route kind: a handful of rows the hourly rollup
// answers for, where the report's groups may be a hundred thousand.
func reportTotals(ctx context.Context, r analytics.Reader, orgID string, q costQuery) (analytics.BreakdownRow, error) {
	var t analytics.BreakdownRow
	bq := q.breakdownQuery()
	bq.By = analytics.DimRouteKind
	err := r.EachBreakdown(ctx, orgID, bq, func(row analytics.BreakdownRow) error {
		addRow(&t, row)
		return nil
	})
	return t, err
}

// addRow adds row's counts and sums (not its mean latency) to t.
func addRow(t *analytics.BreakdownRow, row analytics.BreakdownRow) {
	t.Requests += row.Requests
	t.Errors += row.Errors
	t.CacheHits += row.CacheHits
	t.InputTokens += row.InputTokens
	t.OutputTokens += row.OutputTokens
	t.CostMicros += row.CostMicros
	t.BaselineMicros += row.BaselineMicros
	t.SavingsMicros += row.SavingsMicros
}

// buildCostPage reads limit groups of the report from offset on, and the
// totals.
func buildCostPage(ctx context.Context, r analytics.Reader, orgID string, q costQuery, offset, limit int) (costPage, error) {
	p := costPage{Query: q, Offset: offset}
	bq := q.breakdownQuery()
	bq.Offset, bq.Limit = offset, limit+1 // one more tells whether more follow
	err := r.EachBreakdown(ctx, orgID, bq, func(row analytics.BreakdownRow) error {
		if len(p.Rows) == limit {
			p.More = true
			return nil
		}
		p.Rows = append(p.Rows, row)
		return nil
	})
	if err != nil {
		return costPage{}, err
	}
	if p.Totals, err = reportTotals(ctx, r, orgID, q); err != nil {
		return costPage{}, err
	}
	if q.Dim == analytics.DimTag {
		return p, nil // tag groups overlap (a request under each of its tags): no "other" is their difference
	}
	var shown analytics.BreakdownRow
	for _, row := range p.Rows {
		addRow(&shown, row)
	}
	t := p.Totals
	p.Other = analytics.BreakdownRow{Key: "other", Requests: t.Requests - shown.Requests, Errors: t.Errors - shown.Errors,
		CacheHits: t.CacheHits - shown.CacheHits, InputTokens: t.InputTokens - shown.InputTokens,
		OutputTokens: t.OutputTokens - shown.OutputTokens, CostMicros: t.CostMicros - shown.CostMicros,
		BaselineMicros: t.BaselineMicros - shown.BaselineMicros, SavingsMicros: t.SavingsMicros - shown.SavingsMicros}
	return p, nil
}

// HasOther reports whether groups off the page exist (so the Other row
// means something).
func (p costPage) HasOther() bool {
	return p.Query.Dim != analytics.DimTag && (p.More || p.Offset > 0)
}

// Dollars formats integer micro-dollars as exact decimal dollars with six
// decimals ("-1.500000"), keeping the sign.
func Dollars(micros int64) string { return string(appendDollars(nil, micros)) }

// appendDollars appends Dollars(micros) to b.
func appendDollars(b []byte, micros int64) []byte {
	u := uint64(micros)
	if micros < 0 {
		b, u = append(b, '-'), uint64(-(micros+1))+1
	}
	b = strconv.AppendUint(b, u/1_000_000, 10)
	frac := u % 1_000_000
	b = append(b, '.')
	for d := uint64(100_000); d > 1 && frac < d; d /= 10 {
		b = append(b, '0')
	}
	return strconv.AppendUint(b, frac, 10)
}

// costCSVHeader is the CSV's header after the group column.
var costCSVHeader = []string{"requests", "errors", "cache_hits", "input_tokens", "output_tokens", "cost_usd", "baseline_usd", "savings_usd"}

// appendCSVRecord appends one group's CSV line to b, quoting the key as
// encoding/csv would; an export reuses b, so a row costs no allocation.
func appendCSVRecord(b []byte, key string, r analytics.BreakdownRow) []byte {
	if csvNeedsQuotes(key) {
		b = append(b, '"')
		for i := 0; i < len(key); i++ {
			if key[i] == '"' {
				b = append(b, '"')
			}
			b = append(b, key[i])
		}
		b = append(b, '"')
	} else {
		b = append(b, key...)
	}
	for _, n := range []int64{r.Requests, r.Errors, r.CacheHits, r.InputTokens, r.OutputTokens} {
		b = strconv.AppendInt(append(b, ','), n, 10)
	}
	for _, m := range []int64{r.CostMicros, r.BaselineMicros, r.SavingsMicros} {
		b = appendDollars(append(b, ','), m)
	}
	return append(b, '\n')
}

// csvNeedsQuotes is encoding/csv's rule for a field (comma separated).
func csvNeedsQuotes(f string) bool {
	if f == "" {
		return false
	}
	if f == `\.` || strings.ContainsAny(f, ",\"\r\n") {
		return true
	}
	r, _ := utf8.DecodeRuneInString(f)
	return unicode.IsSpace(r)
}

// costRowView is one row (or the totals) of the JSON report. Money is in
// exact decimal dollars and in integer micro-dollars.
type costRowView struct {
	Value          *string     `json:"value,omitempty"`
	Requests       int64       `json:"requests"`
	Errors         int64       `json:"errors"`
	CacheHits      int64       `json:"cache_hits"`
	InputTokens    int64       `json:"input_tokens"`
	OutputTokens   int64       `json:"output_tokens"`
	CostUSD        json.Number `json:"cost_usd"`
	BaselineUSD    json.Number `json:"baseline_usd"`
	SavingsUSD     json.Number `json:"savings_usd"`
	CostMicros     int64       `json:"cost_micros"`
	BaselineMicros int64       `json:"baseline_micros"`
	SavingsMicros  int64       `json:"savings_micros"`
}

// costPageView is the JSON of a page of the report (the admin API's limit
// parameter): its groups, the others summed, and where the next page starts.
type costPageView struct {
	From       string        `json:"from"`
	To         string        `json:"to"`
	Group      string        `json:"group"`
	Offset     int           `json:"offset"`
	Rows       []costRowView `json:"rows"`
	Other      *costRowView  `json:"other,omitempty"`
	Totals     costRowView   `json:"totals"`
	NextOffset *int          `json:"next_offset,omitempty"`
}

func viewCostPage(p costPage) costPageView {
	v := costPageView{From: p.Query.FromDate(), To: p.Query.ToDate(), Group: p.Query.Group, Offset: p.Offset,
		Rows: make([]costRowView, len(p.Rows)), Totals: viewCostRow(p.Totals)}
	for i, r := range p.Rows {
		v.Rows[i] = keyedRow(r)
	}
	if p.HasOther() {
		o := viewCostRow(p.Other)
		v.Other = &o
	}
	if p.More {
		n := p.Offset + len(p.Rows)
		v.NextOffset = &n
	}
	return v
}

func viewCostRow(r analytics.BreakdownRow) costRowView {
	return costRowView{
		Requests: r.Requests, Errors: r.Errors, CacheHits: r.CacheHits, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
		CostUSD: json.Number(Dollars(r.CostMicros)), BaselineUSD: json.Number(Dollars(r.BaselineMicros)),
		SavingsUSD: json.Number(Dollars(r.SavingsMicros)),
		CostMicros: r.CostMicros, BaselineMicros: r.BaselineMicros, SavingsMicros: r.SavingsMicros,
	}
}

// keyedRow is a group's JSON row, its value included.
func keyedRow(r analytics.BreakdownRow) costRowView {
	v := viewCostRow(r)
	key := r.Key
	v.Value = &key
	return v
}

// costReport handles GET /api/v1/reports/cost (viewers and above): the
// current organisation's cost report for from..to (UTC dates, both
// included) grouped by day, model, key, user or route, as JSON or CSV
// streamed group by group; with limit (and offset), one page of it as JSON.
func (a *API) costReport(c *fiber.Ctx) error {
	act, err := a.actor(c)
	if err != nil {
		return a.fail(c, err)
	}
	if !act.Can(tenancy.PermRead) {
		return a.fail(c, tenancy.ErrForbidden)
	}
	q, err := parseCostQuery(func(k string) string { return utils.CopyString(c.Query(k)) }, time.Now())
	if err != nil {
		return a.fail(c, err)
	}
	if q.Limit > 0 {
		if q.Format != "json" {
			return a.fail(c, badParam("limit", "pages are JSON; the CSV holds every group"))
		}
		p, err := buildCostPage(c.UserContext(), a.d.Reader, act.OrgID, q, q.Offset, q.Limit)
		if err != nil {
			return a.fail(c, err)
		}
		return c.JSON(viewCostPage(p))
	}
	return streamCostReport(c, a.d.Reader, act.OrgID, q, a.d.Logger, a.fail)
}

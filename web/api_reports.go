package web

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"

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
	if q.Format != "csv" && q.Format != "json" {
		return q, badParam("format", "must be csv or json")
	}
	return q, nil
}

// costReport is a built report: the Reader's rows and their totals.
type costReport struct {
	Query  costQuery
	Rows   []analytics.BreakdownRow
	Totals analytics.BreakdownRow
}

// buildCostReport runs the report's Breakdown for orgID.
func buildCostReport(ctx context.Context, r analytics.Reader, orgID string, q costQuery) (costReport, error) {
	rows, err := r.Breakdown(ctx, orgID, q.From, q.To.AddDate(0, 0, 1), q.Dim)
	if err != nil {
		return costReport{}, err
	}
	rep := costReport{Query: q, Rows: rows}
	for _, row := range rows {
		t := &rep.Totals
		t.Requests += row.Requests
		t.Errors += row.Errors
		t.CacheHits += row.CacheHits
		t.InputTokens += row.InputTokens
		t.OutputTokens += row.OutputTokens
		t.CostMicros += row.CostMicros
		t.BaselineMicros += row.BaselineMicros
		t.SavingsMicros += row.SavingsMicros
	}
	return rep, nil
}

// Dollars formats integer micro-dollars as exact decimal dollars with six
// decimals ("-1.500000"), keeping the sign.
func Dollars(micros int64) string {
	sign := ""
	u := uint64(micros)
	if micros < 0 {
		sign, u = "-", uint64(-(micros+1))+1
	}
	frac := strconv.FormatUint(u%1_000_000, 10)
	for len(frac) < 6 {
		frac = "0" + frac
	}
	return sign + strconv.FormatUint(u/1_000_000, 10) + "." + frac
}

// costCSVHeader is the CSV's header after the group column.
var costCSVHeader = []string{"requests", "errors", "cache_hits", "input_tokens", "output_tokens", "cost_usd", "baseline_usd", "savings_usd"}

func csvRecord(key string, r analytics.BreakdownRow) []string {
	i := func(n int64) string { return strconv.FormatInt(n, 10) }
	return []string{key, i(r.Requests), i(r.Errors), i(r.CacheHits), i(r.InputTokens), i(r.OutputTokens),
		Dollars(r.CostMicros), Dollars(r.BaselineMicros), Dollars(r.SavingsMicros)}
}

// writeCostCSV writes the report as CSV: a header row, then one row per
// group.
func writeCostCSV(w io.Writer, rep costReport) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append([]string{rep.Query.Group}, costCSVHeader...)); err != nil {
		return err
	}
	for _, r := range rep.Rows {
		if err := cw.Write(csvRecord(r.Key, r)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
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

// costReportView is the JSON report.
type costReportView struct {
	From   string        `json:"from"`
	To     string        `json:"to"`
	Group  string        `json:"group"`
	Rows   []costRowView `json:"rows"`
	Totals costRowView   `json:"totals"`
}

func viewCostRow(r analytics.BreakdownRow) costRowView {
	return costRowView{
		Requests: r.Requests, Errors: r.Errors, CacheHits: r.CacheHits, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
		CostUSD: json.Number(Dollars(r.CostMicros)), BaselineUSD: json.Number(Dollars(r.BaselineMicros)),
		SavingsUSD: json.Number(Dollars(r.SavingsMicros)),
		CostMicros: r.CostMicros, BaselineMicros: r.BaselineMicros, SavingsMicros: r.SavingsMicros,
	}
}

func viewCostReport(rep costReport) costReportView {
	v := costReportView{From: rep.Query.FromDate(), To: rep.Query.ToDate(), Group: rep.Query.Group,
		Rows: make([]costRowView, len(rep.Rows)), Totals: viewCostRow(rep.Totals)}
	for i, r := range rep.Rows {
		v.Rows[i] = viewCostRow(r)
		key := r.Key
		v.Rows[i].Value = &key
	}
	return v
}

// sendCostReport writes rep in format: JSON, or CSV streamed as an
// attachment.
func sendCostReport(c *fiber.Ctx, rep costReport, format string) error {
	if format == "json" {
		return c.JSON(viewCostReport(rep))
	}
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, "attachment; filename="+rep.Query.filename())
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		// The status and headers are gone by now; a failed write means the
		// client left.
		_ = writeCostCSV(w, rep)
	})
	return nil
}

// costReport handles GET /api/v1/reports/cost (viewers and above): the
// current organisation's cost report for from..to (UTC dates, both
// included) grouped by day, model, key, user or route, as JSON or CSV.
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
	rep, err := buildCostReport(c.UserContext(), a.d.Reader, act.OrgID, q)
	if err != nil {
		return a.fail(c, err)
	}
	return sendCostReport(c, rep, q.Format)
}

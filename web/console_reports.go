package web

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/web/views/pages/reports"
)

// reportForm reads the report form from the query string: the parsed query
// (defaults filled in) and the form echoing it.
func (c *Console) reportForm(ctx *fiber.Ctx) (costQuery, reports.FormProps, error) {
	get := func(k string) string {
		if k == "format" { // the route picks the format
			return ""
		}
		return formValue(ctx, k)
	}
	q, err := parseCostQuery(get, c.d.Now())
	f := reports.FormProps{From: q.FromDate(), To: q.ToDate(), Group: q.Group, Groups: ReportGroups}
	for _, pr := range []struct {
		label string
		days  int
	}{{"24 h", 2}, {"7 d", 7}, {"30 d", 30}} {
		// 24 h in whole UTC dates is yesterday and today.
		f.Presets = append(f.Presets, [2]string{pr.label, q.To.AddDate(0, 0, 1-pr.days).Format(time.DateOnly)})
	}
	if err != nil {
		// Echo what was typed so the user can correct it.
		f.From, f.To, f.Group = get("from"), get("to"), get("group")
		f.Fields, f.Error = fieldErrors(err)
	}
	return q, f, err
}

// reportsPage handles GET /reports: the form, the download links and the
// preview of the rows; htmx gets the preview alone. An invalid form
// re-renders with 422.
func (c *Console) reportsPage(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	q, form, err := c.reportForm(ctx)
	p := reports.PreviewProps{Form: form}
	status := fiber.StatusOK
	if err != nil {
		if !isInvalidInput(err) {
			return c.fail(ctx, err)
		}
		status = fiber.StatusUnprocessableEntity
	} else {
		rep, err := buildCostReport(ctx.UserContext(), c.d.Reader, act.OrgID, q)
		if err != nil {
			return c.fail(ctx, err)
		}
		p.Valid, p.Rows, p.Totals = true, rep.Rows, rep.Totals
		switch q.Dim {
		case analytics.DimKey:
			p.KeyNames = c.keyNames(ctx)
		case analytics.DimTag:
			// A request with several tags is in several rows: the total
			// counts it once.
			sum, err := c.d.Reader.Summary(ctx.UserContext(), act.OrgID, q.From, q.To.AddDate(0, 0, 1))
			if err != nil {
				return c.fail(ctx, err)
			}
			p.Totals = analytics.BreakdownRow{Requests: sum.Requests, Errors: sum.Errors, CacheHits: sum.CacheHits,
				InputTokens: sum.InputTokens, OutputTokens: sum.OutputTokens, CostMicros: sum.CostMicros,
				BaselineMicros: sum.BaselineMicros, SavingsMicros: sum.SavingsMicros}
		}
	}
	if isHTMX(ctx) {
		return c.render(ctx, status, reports.Preview(p))
	}
	return c.render(ctx, status, reports.Page(reports.PageProps{Layout: c.layoutFor(ctx, "Reports", "reports"), Preview: p}))
}

// reportDownload handles GET /reports/cost.csv and /reports/cost.json: the
// same report as the admin API's, authenticated by the console session.
func (c *Console) reportDownload(format string) fiber.Handler {
	return func(ctx *fiber.Ctx) error {
		act, err := c.api.actor(ctx)
		if err != nil {
			return c.fail(ctx, err)
		}
		q, _, err := c.reportForm(ctx)
		if err != nil {
			return c.fail(ctx, err)
		}
		rep, err := buildCostReport(ctx.UserContext(), c.d.Reader, act.OrgID, q)
		if err != nil {
			return c.fail(ctx, err)
		}
		return sendCostReport(ctx, rep, format)
	}
}

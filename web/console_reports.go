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

// reportsPage handles GET /reports: the form, the download links and one
// page of the groups (ReportPageRows from offset, the rest summed as
// "other"); htmx gets the preview alone. An invalid form
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
		size := ReportPageRows
		if q.Dim == analytics.DimDay { // a period's days fit on one page
			size = ReportMaxDays
		}
		page, err := buildCostPage(ctx.UserContext(), c.d.Reader, act.OrgID, q, q.Offset, size)
		if err != nil {
			return c.fail(ctx, err)
		}
		p.Valid, p.Rows, p.Totals, p.Offset, p.More = true, page.Rows, page.Totals, page.Offset, page.More
		p.PageSize = size
		if page.HasOther() {
			p.Other = &page.Other
		}
		if q.Dim == analytics.DimKey {
			p.KeyNames = c.keyNames(ctx)
		}
	}
	if isHTMX(ctx) {
		return c.render(ctx, status, reports.Preview(p))
	}
	return c.render(ctx, status, reports.Page(reports.PageProps{Layout: c.layoutFor(ctx, "Reports", "reports"), Preview: p}))
}

// reportDownload handles GET /reports/cost.csv and /reports/cost.json: the
// same whole report as the admin API's, streamed, authenticated by the
// console session.
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
		q.Format = format
		return streamCostReport(ctx, c.d.Reader, act.OrgID, q, c.d.Logger, c.fail)
	}
}

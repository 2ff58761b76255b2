package web

import (
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/errgroup"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/web/views/components"
	"github.com/heddle-gw/heddle/web/views/pages/dashboard"
)

// dashboard handles GET /dashboard: the organisation's summary over the
// last DashboardDays UTC days (today included) and its breakdowns.
func (c *Console) dashboard(ctx *fiber.Ctx) error {
	now := c.d.Now().UTC()
	from := now.Truncate(24*time.Hour).AddDate(0, 0, 1-c.d.DashboardDays)
	to := now.Add(time.Millisecond)
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	org := act.OrgID
	uctx := ctx.UserContext()
	p := dashboard.PageProps{
		Layout: c.layoutFor(ctx, "Dashboard", "dashboard"),
		Period: "Last " + itoa(c.d.DashboardDays) + " days: " + from.Format(time.DateOnly) + " to now (UTC)",
	}
	// The summary and the four breakdowns are independent reads: run them
	// at once, so the page takes as long as the slowest, not their sum.
	dims := []analytics.Dimension{analytics.DimDay, analytics.DimModel, analytics.DimRouteKind, analytics.DimFailureReason}
	found := make([][]analytics.BreakdownRow, len(dims))
	g, gctx := errgroup.WithContext(uctx)
	g.Go(func() (err error) {
		p.Summary, err = c.d.Reader.Summary(gctx, org, from, to)
		return err
	})
	for i, dim := range dims {
		g.Go(func() (err error) {
			found[i], err = c.d.Reader.Breakdown(gctx, org, from, to, dim)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return c.fail(ctx, err)
	}
	rows := map[analytics.Dimension][]analytics.BreakdownRow{}
	for i, dim := range dims {
		rows[dim] = found[i]
	}
	p.Days = fillDays(rows[analytics.DimDay], from, c.d.DashboardDays)
	p.Models, p.Routes, p.Failures = rows[analytics.DimModel], rows[analytics.DimRouteKind], rows[analytics.DimFailureReason]
	p.Chart = components.ChartProps{TestID: "chart-spend-savings"}
	p.Latency = components.SeriesProps{TestID: "chart-latency", Title: "Mean latency per day", Legend: "mean latency of the day's requests"}
	for _, d := range p.Days {
		p.Chart.Bars = append(p.Chart.Bars, components.ChartBar{Label: d.Key[5:], Spend: d.CostMicros, Savings: d.SavingsMicros})
		pt := components.SeriesPoint{Label: d.Key[5:], Value: d.LatencyMeanMs}
		if d.Requests > 0 {
			pt.Text = components.Millis(d.LatencyMeanMs)
		}
		p.Latency.Points = append(p.Latency.Points, pt)
	}
	return c.render(ctx, fiber.StatusOK, dashboard.Page(p))
}

// fillDays returns one row per UTC day from from, days long, taking the
// Reader's rows where it has them and zero rows elsewhere (the Reader omits
// days without requests).
func fillDays(got []analytics.BreakdownRow, from time.Time, days int) []analytics.BreakdownRow {
	byKey := make(map[string]analytics.BreakdownRow, len(got))
	for _, r := range got {
		byKey[r.Key] = r
	}
	out := make([]analytics.BreakdownRow, days)
	for i := range days {
		key := from.AddDate(0, 0, i).Format(time.DateOnly)
		r, ok := byKey[key]
		if !ok {
			r = analytics.BreakdownRow{Key: key}
		}
		out[i] = r
	}
	return out
}

func itoa(n int) string { return components.Int(int64(n)) }

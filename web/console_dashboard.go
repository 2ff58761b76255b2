package web

import (
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/errgroup"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/web/views/components"
	"github.com/heddle-gw/heddle/web/views/pages/dashboard"
)

// dashboard handles GET /dashboard: the organisation's summary over the
// chosen range (see parseRange; the last 7 days by default) and its
// breakdowns. A range that does not parse re-renders the page with its
// reason and 422.
func (c *Console) dashboard(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	rng, rerr := parseRange(func(k string) string { return formValue(ctx, k) }, c.d.Now())
	p := dashboard.PageProps{
		Layout:   c.layoutFor(ctx, "Dashboard", "dashboard"),
		Range:    dashboard.RangeProps{Preset: rng.Preset, From: formValue(ctx, "from"), To: formValue(ctx, "to")},
		Baseline: c.d.BaselineModel,
	}
	if rerr != nil {
		var fe *formError
		if !errors.As(rerr, &fe) {
			return c.fail(ctx, rerr)
		}
		p.Error = fieldLabel(fe.field) + " " + fe.msg + "."
		return c.render(ctx, fiber.StatusUnprocessableEntity, dashboard.Page(p))
	}
	if rng.Preset == rangeCustom {
		p.Range.From, p.Range.To = rng.From.Format(time.DateOnly), rng.To.AddDate(0, 0, -1).Format(time.DateOnly)
	}
	p.Period = rng.label()
	org, from, to := act.OrgID, rng.From, rng.To
	// The summary and the four breakdowns are independent reads: run them
	// at once, so the page takes as long as the slowest, not their sum.
	dims := []analytics.Dimension{analytics.DimDay, analytics.DimModel, analytics.DimRouteKind, analytics.DimFailureReason}
	found := make([][]analytics.BreakdownRow, len(dims))
	g, gctx := errgroup.WithContext(ctx.UserContext())
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
	p.Days = fillDays(rows[analytics.DimDay], rng.FirstDay, rng.Days)
	p.Models, p.Routes, p.Failures = rows[analytics.DimModel], rows[analytics.DimRouteKind], rows[analytics.DimFailureReason]
	p.Sources = savingsSources(p.Routes)
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
	p.SourceChart = components.ChartProps{TestID: "chart-savings-source"}
	for _, s := range p.Sources {
		p.SourceChart.Bars = append(p.SourceChart.Bars, components.ChartBar{Label: s.Source, Spend: s.CostMicros, Savings: s.SavingsMicros})
	}
	return c.render(ctx, fiber.StatusOK, dashboard.Page(p))
}

// savingsSources splits the period's savings by where they came from: the
// route kinds routed, pinned, cache and explicit, in that order, each with
// its share of the total (zero rows included, so the split always reads
// the same).
func savingsSources(routes []analytics.BreakdownRow) []dashboard.Source {
	byKind := map[string]analytics.BreakdownRow{}
	var total int64
	for _, r := range routes {
		byKind[r.Key] = r
		total += r.SavingsMicros
	}
	var out []dashboard.Source
	for _, k := range []string{"routed", "pinned", "cache", "explicit"} {
		r := byKind[k]
		s := dashboard.Source{Source: k, Requests: r.Requests, CostMicros: r.CostMicros, BaselineMicros: r.BaselineMicros,
			SavingsMicros: r.SavingsMicros}
		if total != 0 {
			s.Share = float64(r.SavingsMicros) / float64(total)
		}
		out = append(out, s)
	}
	return out
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

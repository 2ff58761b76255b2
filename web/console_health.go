package web

import (
	"errors"
	"fmt"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/web/views/pages/health"
)

// circuitRank orders circuit states from healthy to not, so a binding with
// several credentials shows its worst.
var circuitRank = map[string]int{"": 0, "closed": 1, "half_open": 2, "open": 3}

// healthPage handles GET /providers/health: per provider binding, the
// organisation's attempts over the range (24 h by default, or 7d, 30d) and
// this replica's circuit state.
func (c *Console) healthPage(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	hr, ok := c.d.Reader.(analytics.HealthReader)
	if !ok {
		return c.fail(ctx, fmt.Errorf("web: provider health: %T cannot read health", c.d.Reader))
	}
	get := func(k string) string {
		if v := formValue(ctx, k); v != "" || k != "range" {
			return v
		}
		return range24h
	}
	p := health.PageProps{Layout: c.layoutFor(ctx, "Provider health", "health")}
	rng, err := parseRange(get, c.d.Now())
	if err != nil || rng.Preset == rangeCustom {
		var fe *formError
		if err != nil && !errors.As(err, &fe) {
			return c.fail(ctx, err)
		}
		p.Preset, p.Error = get("range"), "Range must be 24h, 7d or 30d."
		return c.render(ctx, fiber.StatusUnprocessableEntity, health.Page(p))
	}
	p.Preset, p.Period = rng.Preset, rng.label()
	rows, err := hr.Health(ctx.UserContext(), act.OrgID, rng.From, rng.To)
	if err != nil {
		return c.fail(ctx, err)
	}
	var circuits []dispatch.Circuit
	if c.d.Circuits != nil {
		circuits = c.d.Circuits(act.OrgID)
	}
	p.Rows = healthRows(rows, circuits)
	return c.render(ctx, fiber.StatusOK, health.Page(p))
}

// healthRows joins the bindings' attempt health with their circuits (by
// provider and model); a circuit of a binding without attempts in the range
// gets a row of its own, after the others.
func healthRows(rows []analytics.BindingHealth, circuits []dispatch.Circuit) []health.Row {
	out := make([]health.Row, len(rows))
	at := make(map[[2]string]int, len(rows))
	for i, r := range rows {
		out[i] = health.Row{BindingHealth: r}
		at[[2]string{r.Provider, r.Model}] = i
	}
	for _, cb := range circuits {
		k := [2]string{cb.Provider, cb.Model}
		i, ok := at[k]
		if !ok {
			out = append(out, health.Row{BindingHealth: analytics.BindingHealth{Provider: cb.Provider, Model: cb.Model}})
			i = len(out) - 1
			at[k] = i
		}
		if circuitRank[cb.State] > circuitRank[out[i].Circuit] {
			out[i].Circuit, out[i].OpenedAt = cb.State, cb.OpenedAt
		}
	}
	return out
}

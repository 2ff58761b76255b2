package web

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/web/views/components"
	bview "github.com/heddle-gw/heddle/web/views/pages/budgets"
)

// usageRow formats one budget and its spending.
func usageRow(period string, u budgetUsage) bview.Usage {
	r := bview.Usage{Period: period, Mode: u.Mode, Spent: components.USD(u.SpentMicros), ResetsAt: components.Time(u.ResetsAt)}
	if u.LimitMicros > 0 {
		frac := float64(u.SpentMicros) / float64(u.LimitMicros)
		r.Limit = components.USD(u.LimitMicros)
		r.Used = components.Percent(frac)
		r.Meter = strconv.FormatFloat(min(frac, 1), 'f', 4, 64)
		r.Over = u.SpentMicros >= u.LimitMicros
	}
	return r
}

// budgetDollars shows micro-dollars in a form field ("" for none).
func budgetDollars(micros int64) string {
	if micros <= 0 {
		return ""
	}
	return strconv.FormatFloat(float64(micros)/1e6, 'f', -1, 64)
}

// concurrencyField shows an organisation's concurrency cap in the form (""
// for the operator's default).
func concurrencyField(n int) string {
	if n <= 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// budgetsContent builds the page's content from the state; the form shows
// the stored settings.
func budgetsContent(v budgetsView, csrf string, canEdit bool) bview.ContentProps {
	p := bview.ContentProps{
		Daily: usageRow("day", v.Org.Daily), Monthly: usageRow("month", v.Org.Monthly),
		Form: bview.FormProps{
			CSRF: csrf, CanEdit: canEdit,
			Daily: budgetDollars(v.Org.Daily.LimitMicros), DailyMode: v.Org.Daily.Mode,
			Monthly: budgetDollars(v.Org.Monthly.LimitMicros), MonthlyMode: v.Org.Monthly.Mode,
			MaxConcurrency: concurrencyField(v.Org.MaxConcurrency),
		},
		Keys: make([]bview.KeyRow, len(v.Keys)),
	}
	if v.Org.UpdatedAt != nil {
		p.Form.Updated = components.Time(*v.Org.UpdatedAt)
	}
	for i, k := range v.Keys {
		p.Keys[i] = bview.KeyRow{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Status: k.Status,
			Daily: usageRow("day", k.Daily), Monthly: usageRow("month", k.Monthly)}
	}
	return p
}

// renderBudgets writes the content partial for htmx, the page otherwise.
func (c *Console) renderBudgets(ctx *fiber.Ctx, status int, content bview.ContentProps) error {
	if isHTMX(ctx) {
		return c.render(ctx, status, bview.Content(content))
	}
	return c.render(ctx, status, bview.Page(bview.PageProps{Layout: c.layoutFor(ctx, "Budgets", "budgets"), Content: content}))
}

// budgetsPage handles GET /budgets: the organisation's budgets and spending
// (editable by admins and owners) and every key's.
func (c *Console) budgetsPage(ctx *fiber.Ctx) error {
	act, err := c.api.settingsActor(ctx, false)
	if err != nil {
		return c.fail(ctx, err)
	}
	v, err := c.api.budgetState(ctx.UserContext(), act, c.d.Now())
	if err != nil {
		return c.fail(ctx, err)
	}
	lp := c.layoutFor(ctx, "Budgets", "budgets")
	return c.renderBudgets(ctx, fiber.StatusOK, budgetsContent(v, lp.CSRF, act.Role.AtLeast(tenancy.RoleAdmin)))
}

// budgetsFormInput reads the form (amounts in dollars); the returned props
// echo what was typed.
func budgetsFormInput(ctx *fiber.Ctx, csrf string) (billing.OrgBudgetSettings, bview.FormProps, error) {
	f := bview.FormProps{
		CSRF: csrf, CanEdit: true,
		Daily: formValue(ctx, "daily_budget"), DailyMode: formValue(ctx, "daily_mode"),
		Monthly: formValue(ctx, "monthly_budget"), MonthlyMode: formValue(ctx, "monthly_mode"),
		MaxConcurrency: formValue(ctx, "max_concurrency"),
	}
	s := billing.OrgBudgetSettings{Daily: billing.OrgLimit{Mode: billing.Mode(f.DailyMode)}, Monthly: billing.OrgLimit{Mode: billing.Mode(f.MonthlyMode)}}
	var err error
	if s.Daily.LimitMicros, err = formDollars("daily_budget", f.Daily); err != nil {
		return s, f, err
	}
	if s.Monthly.LimitMicros, err = formDollars("monthly_budget", f.Monthly); err != nil {
		return s, f, err
	}
	if f.MaxConcurrency != "" {
		n, err := strconv.Atoi(strings.TrimSpace(f.MaxConcurrency))
		if err != nil {
			return s, f, &billing.FieldError{Field: "max_concurrency", Message: "must be a whole number (empty for the operator's default)"}
		}
		s.MaxConcurrency = n // Validate bounds it
	}
	return s, f, nil
}

// budgetFieldErrors maps a settings error onto the form's fields (the
// domain names limits in micro-dollars, the form in dollars).
func budgetFieldErrors(err error) (map[string]string, string) {
	var fe *billing.FieldError
	if errors.As(err, &fe) {
		field := strings.Replace(fe.Field, "_limit_micros", "_budget", 1)
		return map[string]string{field: fe.Message}, "Please correct the field marked below."
	}
	return fieldErrors(err)
}

// saveBudgets handles POST /budgets (admins and owners): it replaces the
// organisation's budgets through the admin API's validation. An invalid
// form re-renders with 422 and changes nothing.
func (c *Console) saveBudgets(ctx *fiber.Ctx) error {
	act, err := c.api.settingsActor(ctx, true)
	if err != nil {
		return c.fail(ctx, err)
	}
	lp := c.layoutFor(ctx, "Budgets", "budgets")
	s, form, err := budgetsFormInput(ctx, lp.CSRF)
	if err == nil {
		err = c.api.saveBudgets(ctx.UserContext(), act, s, "console")
	}
	if err != nil && !isInvalidInput(err) && !errors.Is(err, billing.ErrInvalidBudgetSettings) {
		return c.fail(ctx, err)
	}
	v, verr := c.api.budgetState(ctx.UserContext(), act, c.d.Now())
	if verr != nil {
		return c.fail(ctx, verr)
	}
	content := budgetsContent(v, lp.CSRF, true)
	if err != nil {
		form.Fields, form.Error = budgetFieldErrors(err)
		form.Updated = content.Form.Updated
		content.Form = form
		return c.renderBudgets(ctx, fiber.StatusUnprocessableEntity, content)
	}
	content.Form.Saved = true
	return c.renderBudgets(ctx, fiber.StatusOK, content)
}

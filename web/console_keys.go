package web

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/web/views/components"
	"github.com/heddle-gw/heddle/web/views/pages/keys"
)

// keyRow is the list view of one key as act sees it.
func keyRow(k *tenancy.Key, now time.Time, act tenancy.Actor) keys.Row {
	v := viewKey(k, now)
	r := keys.Row{
		ID: v.ID, Prefix: v.Prefix, Name: v.Name, Scopes: v.Scopes, Policy: v.Policy, Alpha: v.Alpha,
		RPM: v.RPM, TPM: v.TPM, Daily: v.DailyBudgetMicros, Monthly: v.MonthlyBudgetMicros, Soft: v.BudgetMode == "soft",
		LastUsed: components.TimePtr(v.LastUsedAt), Created: components.Time(v.CreatedAt), Status: v.Status,
		CanEdit: canEditKey(act, k), CanReinstate: act.Can(tenancy.PermManageKeys), Tags: v.Tags, Expires: "never",
	}
	if v.ExpiresAt != nil {
		r.Expires = components.Time(*v.ExpiresAt)
	}
	return r
}

// withSpend fills the rows' spend this UTC month from the request
// analytics (by key); the rows keep "-" when it cannot be read.
func (c *Console) withSpend(ctx *fiber.Ctx, orgID string, rows ...*keys.Row) {
	now := c.d.Now().UTC()
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	got, err := c.d.Reader.Breakdown(ctx.UserContext(), orgID, month, now.Add(time.Millisecond), analytics.DimKey)
	if err != nil {
		c.d.Logger.WarnContext(ctx.UserContext(), "keys: month spend", "err", err, "org_id", orgID)
		return
	}
	spend := make(map[string]int64, len(got))
	for _, g := range got {
		spend[g.Key] = g.CostMicros
	}
	for _, r := range rows {
		r.Spend, r.SpendKnown = spend[r.ID], true
	}
}

// canEditKey mirrors tenancy.Keys' rule: admins and owners change any key,
// members the keys they created.
func canEditKey(act tenancy.Actor, k *tenancy.Key) bool {
	return act.Can(tenancy.PermManageKeys) || (act.Can(tenancy.PermCreateOwnKey) && k.CreatedBy == act.UserID)
}

// keyRows lists the organisation's keys.
func (c *Console) keyRows(ctx *fiber.Ctx, act tenancy.Actor) ([]keys.Row, error) {
	ks, err := c.d.Keys.List(ctx.UserContext(), act)
	if err != nil {
		return nil, err
	}
	now := c.d.Now()
	rows := make([]keys.Row, len(ks))
	ptrs := make([]*keys.Row, len(ks))
	for i := range ks {
		rows[i] = keyRow(&ks[i], now, act)
		ptrs[i] = &rows[i]
	}
	c.withSpend(ctx, act.OrgID, ptrs...)
	return rows, nil
}

func emptyKeyForm(csrf string) keys.FormProps {
	return keys.FormProps{CSRF: csrf, Scopes: map[string]bool{"inference": true, "route": true}, Policy: "explicit"}
}

// keysPage handles GET /keys.
func (c *Console) keysPage(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	rows, err := c.keyRows(ctx, act)
	if err != nil {
		return c.fail(ctx, err)
	}
	lp := c.layoutFor(ctx, "Keys", "keys")
	return c.render(ctx, fiber.StatusOK, keys.Page(keys.PageProps{Layout: lp, Rows: rows, Form: emptyKeyForm(lp.CSRF)}))
}

// keyForm reads the create form; the returned props echo what was typed.
func keyForm(ctx *fiber.Ctx, csrf string) (tenancy.KeyInput, keys.FormProps, error) {
	f := keys.FormProps{
		CSRF: csrf, Name: formValue(ctx, "name"), Policy: utils.CopyString(ctx.FormValue("policy")),
		RPM: formValue(ctx, "rpm"), TPM: formValue(ctx, "tpm"),
		Daily: formValue(ctx, "daily_budget"), Monthly: formValue(ctx, "monthly_budget"),
		Tags: formValue(ctx, "tags"), Expires: formValue(ctx, "expires"), Scopes: map[string]bool{},
	}
	in := tenancy.KeyInput{Name: f.Name, Policy: tenancy.Policy(f.Policy), Tags: splitTags(f.Tags)}
	if f.Expires != "" {
		d, err := time.ParseInLocation(time.DateOnly, f.Expires, time.UTC)
		if err != nil {
			return in, f, &formError{field: "expires", msg: "must be a date like 2026-12-31"}
		}
		end := d.AddDate(0, 0, 1).Add(-time.Second) // the end of that UTC day
		in.ExpiresAt = &end
	}
	for _, s := range ctx.Request().PostArgs().PeekMulti("scopes") {
		f.Scopes[string(s)] = true
		in.Scopes = append(in.Scopes, tenancy.Scope(string(s)))
	}
	var err error
	if in.Limits.RPM, err = formInt("rpm", f.RPM); err != nil {
		return in, f, err
	}
	if in.Limits.TPM, err = formInt("tpm", f.TPM); err != nil {
		return in, f, err
	}
	if in.Limits.DailyBudgetMicros, err = formDollars("daily_budget", f.Daily); err != nil {
		return in, f, err
	}
	if in.Limits.MonthlyBudgetMicros, err = formDollars("monthly_budget", f.Monthly); err != nil {
		return in, f, err
	}
	if len(in.Scopes) == 0 {
		return in, f, &formError{field: "scopes", msg: "choose at least one scope"}
	}
	return in, f, nil
}

// formInt parses an optional non-negative whole number.
func formInt(field, s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, &formError{field: field, msg: "must be a whole number, 0 or more"}
	}
	return n, nil
}

// formDollars parses an optional amount of US dollars into micro-dollars.
func formDollars(field, s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(strings.TrimPrefix(s, "$"), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || v > 1e9 {
		return 0, &formError{field: field, msg: "must be an amount in dollars, e.g. 25 or 2.50"}
	}
	return int64(math.Round(v * 1e6)), nil
}

// createKey handles POST /keys. The response shows the secret once: the
// created partial for htmx, the whole page otherwise. An invalid form
// re-renders with 422.
func (c *Console) createKey(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	lp := c.layoutFor(ctx, "Keys", "keys")
	in, form, err := keyForm(ctx, lp.CSRF)
	var k *tenancy.Key
	var secret string
	if err == nil {
		k, secret, err = c.d.Keys.Create(ctx.UserContext(), act, in)
	}
	if err != nil {
		if !isInvalidInput(err) {
			return c.fail(ctx, err)
		}
		form.Fields, form.Error = fieldErrors(err)
		if isHTMX(ctx) {
			return c.render(ctx, fiber.StatusUnprocessableEntity, keys.Form(form))
		}
		rows, lerr := c.keyRows(ctx, act)
		if lerr != nil {
			return c.fail(ctx, lerr)
		}
		return c.render(ctx, fiber.StatusUnprocessableEntity, keys.Page(keys.PageProps{Layout: lp, Rows: rows, Form: form}))
	}
	c.d.Logger.InfoContext(ctx.UserContext(), "api key created", "org_id", k.OrgID, "key_id", k.ID, "key_prefix", k.Prefix, "via", "console")
	rows, err := c.keyRows(ctx, act)
	if err != nil {
		return c.fail(ctx, err)
	}
	created := keys.CreatedProps{Secret: secret, Key: keyRow(k, c.d.Now(), act), Form: emptyKeyForm(lp.CSRF), Rows: rows, CSRF: lp.CSRF}
	c.withSpend(ctx, act.OrgID, &created.Key)
	if isHTMX(ctx) {
		return c.render(ctx, fiber.StatusCreated, keys.CreatedPartial(created))
	}
	return c.render(ctx, fiber.StatusCreated, keys.Page(keys.PageProps{Layout: lp, Rows: rows, Created: &created}))
}

// revokeKey handles POST /keys/:id/revoke: the row in its revoked state for
// htmx, a redirect to the list otherwise.
func (c *Console) revokeKey(ctx *fiber.Ctx) error {
	return c.keyAction(ctx, "revoked", func(uctx context.Context, act tenancy.Actor, id string) error { return c.d.Keys.Revoke(uctx, act, id) })
}

// reinstateKey handles POST /keys/:id/reinstate (admins and owners): a
// suspended key serves again; the row in its active state for htmx.
func (c *Console) reinstateKey(ctx *fiber.Ctx) error {
	return c.keyAction(ctx, "reinstated", func(uctx context.Context, act tenancy.Actor, id string) error {
		_, err := c.d.Keys.Reinstate(uctx, act, id)
		return err
	})
}

// keyAction runs do on the key :id and answers its row (htmx) or the list.
func (c *Console) keyAction(ctx *fiber.Ctx, done string, do func(uctx context.Context, act tenancy.Actor, id string) error) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	uctx := ctx.UserContext()
	id := param(ctx, "id")
	if err := do(uctx, act, id); err != nil {
		return c.fail(ctx, err)
	}
	k, err := c.d.Keys.Get(uctx, act, id)
	if err != nil {
		return c.fail(ctx, err)
	}
	c.d.Logger.InfoContext(uctx, "api key "+done, "org_id", k.OrgID, "key_id", k.ID, "key_prefix", k.Prefix, "via", "console")
	if isHTMX(ctx) {
		return c.render(ctx, fiber.StatusOK, keys.KeyRow(keyRow(k, c.d.Now(), act), sessionOf(ctx).CSRF))
	}
	return ctx.Redirect("/keys", fiber.StatusSeeOther)
}

// splitTags reads a comma-separated tag field (the create and edit forms);
// tenancy validates and normalises each tag.
func splitTags(field string) []string {
	var tags []string
	for _, t := range strings.Split(field, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	return tags
}

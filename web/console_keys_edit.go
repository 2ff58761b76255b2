package web

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/web/views/pages/keys"
)

// dollars formats micro-dollars for a form field ("" for none).
func dollars(micros int64) string {
	if micros == 0 {
		return ""
	}
	return strconv.FormatFloat(float64(micros)/1e6, 'f', -1, 64)
}

// editForm is the edit form showing k as stored.
func editForm(k *tenancy.Key, csrf string) keys.EditProps {
	e := keys.EditProps{
		ID: k.ID, Prefix: k.Prefix, Name: k.Name, CSRF: csrf, Policy: string(k.Policy),
		RPM: strconv.Itoa(k.Limits.RPM), TPM: strconv.Itoa(k.Limits.TPM),
		Daily: dollars(k.Limits.DailyBudgetMicros), Monthly: dollars(k.Limits.MonthlyBudgetMicros), Mode: "hard",
		Tags: strings.Join(k.Tags, ", "),
	}
	if k.Limits.SoftBudgets {
		e.Mode = "soft"
	}
	if k.Alpha != nil {
		e.Alpha = strconv.FormatFloat(*k.Alpha, 'f', -1, 64)
	}
	return e
}

// keyPatchForm reads the edit form into a patch of the key's policy, dial,
// limits, budgets and tags; e takes the values as typed.
func keyPatchForm(ctx *fiber.Ctx, e *keys.EditProps) (tenancy.KeyPatch, error) {
	e.Policy, e.Alpha = formValue(ctx, "policy"), formValue(ctx, "alpha")
	e.RPM, e.TPM = formValue(ctx, "rpm"), formValue(ctx, "tpm")
	e.Daily, e.Monthly = formValue(ctx, "daily_budget"), formValue(ctx, "monthly_budget")
	e.Mode, e.Tags = formValue(ctx, "budget_mode"), formValue(ctx, "tags")
	pol := tenancy.Policy(e.Policy)
	// A form without the tags field (a page from before it had one) keeps them.
	p := tenancy.KeyPatch{Policy: &pol, SetAlpha: true, SetTags: ctx.Request().PostArgs().Has("tags"), Tags: splitTags(e.Tags)}
	if e.Alpha != "" {
		a, err := strconv.ParseFloat(e.Alpha, 64)
		if err != nil {
			return p, &formError{field: "alpha", msg: "must be a number between 0 and 1"}
		}
		p.Alpha = &a
	}
	rpm, err := formInt("rpm", e.RPM)
	if err != nil {
		return p, err
	}
	tpm, err := formInt("tpm", e.TPM)
	if err != nil {
		return p, err
	}
	daily, err := formDollars("daily_budget", e.Daily)
	if err != nil {
		return p, err
	}
	monthly, err := formDollars("monthly_budget", e.Monthly)
	if err != nil {
		return p, err
	}
	soft, err := softBudgets(e.Mode)
	if err != nil {
		return p, err
	}
	p.RPM, p.TPM, p.Daily, p.Monthly, p.SoftBudgets = &rpm, &tpm, &daily, &monthly, &soft
	return p, nil
}

// keyFieldErrors is fieldErrors with tenancy's field names mapped onto the
// form's.
func keyFieldErrors(err error) (map[string]string, string) {
	fields, msg := fieldErrors(err)
	for api, form := range map[string]string{"daily_budget_micros": "daily_budget", "monthly_budget_micros": "monthly_budget"} {
		if m, ok := fields[api]; ok {
			delete(fields, api)
			fields[form] = m
		}
	}
	return fields, msg
}

// editableKey loads key :id for editing: ErrForbidden when act may not
// change it.
func (c *Console) editableKey(ctx *fiber.Ctx, act tenancy.Actor) (*tenancy.Key, error) {
	k, err := c.d.Keys.Get(ctx.UserContext(), act, param(ctx, "id"))
	if err != nil {
		return nil, err
	}
	if !canEditKey(act, k) {
		return nil, tenancy.ErrForbidden
	}
	return k, nil
}

// keysPageEditing renders the whole keys page with e in place of its row.
func (c *Console) keysPageEditing(ctx *fiber.Ctx, act tenancy.Actor, status int, e keys.EditProps) error {
	rows, err := c.keyRows(ctx, act)
	if err != nil {
		return c.fail(ctx, err)
	}
	for i := range rows {
		if rows[i].ID == e.ID {
			rows[i].Edit = &e
		}
	}
	lp := c.layoutFor(ctx, "Keys", "keys")
	return c.render(ctx, status, keys.Page(keys.PageProps{Layout: lp, Rows: rows, Form: emptyKeyForm(lp.CSRF), Error: e.Error}))
}

// editKeyPage handles GET /keys/:id/edit: the key's edit form in place of
// its row (the row alone for htmx).
func (c *Console) editKeyPage(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	k, err := c.editableKey(ctx, act)
	if err != nil {
		return c.fail(ctx, err)
	}
	e := editForm(k, sessionOf(ctx).CSRF)
	if isHTMX(ctx) {
		return c.render(ctx, fiber.StatusOK, keys.EditRow(e))
	}
	return c.keysPageEditing(ctx, act, fiber.StatusOK, e)
}

// keyRowPage handles GET /keys/:id/row, the edit form's cancel: the key's
// row for htmx, the list otherwise.
func (c *Console) keyRowPage(ctx *fiber.Ctx) error {
	if !isHTMX(ctx) {
		return ctx.Redirect("/keys", fiber.StatusSeeOther)
	}
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	k, err := c.d.Keys.Get(ctx.UserContext(), act, param(ctx, "id"))
	if err != nil {
		return c.fail(ctx, err)
	}
	row := keyRow(k, c.d.Now(), act)
	c.withSpend(ctx, act.OrgID, &row)
	return c.render(ctx, fiber.StatusOK, keys.KeyRow(row, sessionOf(ctx).CSRF))
}

// updateKey handles POST /keys/:id/edit: it saves the key's limits, budgets
// and routing policy through tenancy.Keys.Update and answers the saved row
// (htmx) or a redirect to the list. A refused save re-renders the form with
// the reason: 422 for a bad field, 409 for a revoked key, 403 for a key the
// viewer may not change.
func (c *Console) updateKey(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	uctx := ctx.UserContext()
	k, err := c.d.Keys.Get(uctx, act, param(ctx, "id"))
	if err != nil {
		return c.fail(ctx, err)
	}
	e := editForm(k, sessionOf(ctx).CSRF)
	patch, err := keyPatchForm(ctx, &e)
	var saved *tenancy.Key
	if err == nil {
		saved, err = c.d.Keys.Update(uctx, act, k.ID, patch)
	}
	if err != nil {
		switch {
		case isInvalidInput(err):
			e.Fields, e.Error = keyFieldErrors(err)
		case errors.Is(err, tenancy.ErrConflict):
			e.Error = "This key is revoked; it can no longer be changed."
		case errors.Is(err, tenancy.ErrForbidden):
			e.Error = "Your role does not allow changing this key: members change only the keys they created."
		default:
			return c.fail(ctx, err)
		}
		status := formStatus(err)
		if isHTMX(ctx) {
			return c.render(ctx, status, keys.EditRow(e))
		}
		return c.keysPageEditing(ctx, act, status, e)
	}
	c.d.Logger.InfoContext(uctx, "api key updated", "org_id", saved.OrgID, "key_id", saved.ID, "key_prefix", saved.Prefix, "via", "console")
	if !isHTMX(ctx) {
		return ctx.Redirect("/keys", fiber.StatusSeeOther)
	}
	row := keyRow(saved, c.d.Now(), act)
	c.withSpend(ctx, act.OrgID, &row)
	row.Saved = true
	return c.render(ctx, fiber.StatusOK, keys.KeyRow(row, sessionOf(ctx).CSRF))
}

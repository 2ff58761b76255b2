package web

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/web/views/components"
	opview "github.com/heddle-gw/heddle/web/views/pages/operator"
)

// mountOperator registers the operator's console routes; each checks the
// operator role (403 for anyone else).
func (c *Console) mountOperator(r fiber.Router, auth func(fiber.Handler) []fiber.Handler) {
	op := func(h fiber.Handler) []fiber.Handler { return append(auth(c.requireOperator), h) }
	r.Get("/operator", op(c.operatorPage)...)
	r.Post("/operator/orgs/:id/plan", op(c.operatorSetPlan)...)
	r.Post("/operator/orgs/:id/credits", op(c.operatorCredit)...)
	r.Post("/operator/plans", op(c.operatorCreatePlan)...)
	r.Post("/operator/credentials", op(c.operatorAddCredential)...)
	r.Post("/operator/credentials/:id/test", op(c.operatorTestCredential)...)
	r.Post("/operator/credentials/:id/delete", op(c.operatorDeleteCredential)...)
	r.Post("/operator/stale/:id/refund", op(c.operatorRefundStale)...)
}

func (c *Console) requireOperator(ctx *fiber.Ctx) error {
	if err := c.api.checkOperator(ctx); err != nil {
		return c.fail(ctx, err)
	}
	return ctx.Next()
}

// operatorContent reads the page's four sections.
func (c *Console) operatorContent(ctx *fiber.Ctx, csrf string) (opview.ContentProps, error) {
	uctx := ctx.UserContext()
	p := opview.ContentProps{CSRF: csrf}
	orgs, err := c.d.Billing.Credits.OrgSummaries(uctx)
	if err != nil {
		return p, err
	}
	for _, o := range orgs {
		p.Orgs = append(p.Orgs, opview.Org{ID: o.OrgID, Name: o.Name, PlanID: o.PlanID, PlanName: o.PlanName,
			Balance: components.USD(o.BalanceMicros), Reserved: components.USD(o.ReservedMicros), Spent: components.USD(o.SpentMicros),
			LastActivity: components.TimePtr(o.LastActivity)})
	}
	plans, err := c.d.Billing.Credits.Plans(uctx)
	if err != nil {
		return p, err
	}
	for _, pl := range plans {
		p.Plans = append(p.Plans, opview.Plan{ID: pl.ID, Name: pl.Name, Providers: strings.Join(pl.Providers, ", "),
			Models: strings.Join(pl.Models, ", "), Multiplier: basisPoints(pl.MultiplierBP, true),
			Included: components.USD(pl.IncludedMonthlyMicros), BYOKFee: basisPoints(pl.BYOKFeeBP, false),
			Defaults: planDefaults(pl.Defaults)})
	}
	creds, err := c.d.Credentials.List(uctx, platformActor(ctx))
	if err != nil {
		return p, err
	}
	for _, cr := range creds {
		p.Credentials = append(p.Credentials, opview.Credential{ID: cr.ID, Provider: cr.Provider, Label: cr.Label,
			BaseURL: cr.BaseURL, LastFour: cr.LastFour, Created: components.Time(cr.CreatedAt)})
	}
	stale, err := c.d.Billing.Credits.StaleDebits(uctx, credits.StaleQuery{})
	if err != nil {
		return p, err
	}
	p.Stale, p.StaleMore = staleRows(stale), len(stale) == credits.DefaultPage
	return p, nil
}

// staleRows are the stale-hold debits as the page shows them.
func staleRows(ds []credits.StaleDebit) []opview.StaleDebit {
	out := make([]opview.StaleDebit, len(ds))
	for i, d := range ds {
		out[i] = opview.StaleDebit{ID: d.Debit.ID, OrgID: d.Debit.OrgID, OrgName: d.OrgName, Amount: components.USD(-d.Debit.AmountMicros),
			Time: components.Time(d.Debit.CreatedAt), RequestID: d.Debit.RequestID,
			RefundUSD: strconv.FormatFloat(float64(-d.Debit.AmountMicros)/1e6, 'f', 6, 64)}
		if d.Refund != nil {
			out[i].Refund, out[i].RefundTime = components.USD(d.Refund.AmountMicros), components.Time(d.Refund.CreatedAt)
		}
	}
	return out
}

// operatorRefundStale handles POST /operator/stale/:id/refund: a refund of
// a stale-hold debit, up to the debited amount, once.
func (c *Console) operatorRefundStale(ctx *fiber.Ctx) error {
	amount, err := usdMicros("amount", formValue(ctx, "amount"))
	if err != nil {
		return c.operatorAnswer(ctx, "", err, nil)
	}
	if amount <= 0 {
		return c.operatorAnswer(ctx, "", &credits.FieldError{Field: "amount", Message: "must be above 0"}, nil)
	}
	e, added, err := c.d.Billing.Credits.RefundStale(ctx.UserContext(), param(ctx, "id"), amount, AuthOf(ctx).UserID, formValue(ctx, "reason"))
	notice := ""
	if err == nil {
		notice = "Refunded " + components.USD(e.AmountMicros) + "."
		if !added {
			notice = "That debit was already refunded; nothing was added."
		}
	}
	return c.operatorAnswer(ctx, notice, err, nil)
}

// operatorAnswer renders the page (or, for htmx, its content) after a post
// with its outcome: notice on success, the error's message (422, or the
// error's own status for a failure of a dependency) otherwise.
func (c *Console) operatorAnswer(ctx *fiber.Ctx, notice string, postErr error, edit func(*opview.ContentProps)) error {
	lp := c.layoutFor(ctx, "Operator", "operator")
	p, err := c.operatorContent(ctx, lp.CSRF)
	if err != nil {
		return c.fail(ctx, err)
	}
	status := fiber.StatusOK
	if postErr != nil {
		st, d, known := classify(postErr)
		if !known || st >= 500 || st == fiber.StatusForbidden {
			return c.fail(ctx, postErr)
		}
		status, p.Error = fiber.StatusUnprocessableEntity, d.Message
		if st == fiber.StatusNotFound || st == fiber.StatusConflict {
			status = st
		}
	} else {
		p.Notice = notice
	}
	if edit != nil {
		edit(&p)
	}
	if isHTMX(ctx) {
		return c.render(ctx, status, opview.Content(p))
	}
	return c.render(ctx, status, opview.Page(opview.PageProps{Layout: lp, Content: p}))
}

// operatorPage handles GET /operator.
func (c *Console) operatorPage(ctx *fiber.Ctx) error { return c.operatorAnswer(ctx, "", nil, nil) }

func (c *Console) operatorSetPlan(ctx *fiber.Ctx) error {
	org, err := c.api.operatorOrg(ctx)
	if err == nil {
		err = c.d.Billing.Credits.AssignPlan(ctx.UserContext(), org, formValue(ctx, "plan_id"))
	}
	return c.operatorAnswer(ctx, "Plan set.", err, nil)
}

// usdMicros reads a signed amount in dollars as micro-dollars.
func usdMicros(field, s string) (int64, error) {
	v, err := strconv.ParseFloat(strings.TrimPrefix(s, "$"), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e9 {
		return 0, &credits.FieldError{Field: field, Message: "must be an amount in dollars, e.g. 25 or -2.50"}
	}
	return int64(math.Round(v * 1e6)), nil
}

// operatorCredit handles POST /operator/orgs/:id/credits: a top-up (through
// the payment port, a reference required), grant, refund or adjustment.
func (c *Console) operatorCredit(ctx *fiber.Ctx) error {
	org, err := c.api.operatorOrg(ctx)
	if err != nil {
		return c.operatorAnswer(ctx, "", err, nil)
	}
	amount, err := usdMicros("amount", formValue(ctx, "amount"))
	if err != nil {
		return c.operatorAnswer(ctx, "", err, nil)
	}
	uctx, actor := ctx.UserContext(), AuthOf(ctx).UserID
	kind, reason, ref := credits.Kind(formValue(ctx, "kind")), formValue(ctx, "reason"), formValue(ctx, "reference")
	var added bool
	if kind == credits.KindTopUp {
		_, added, err = c.d.Billing.Payments.Credit(uctx, Payment{OrgID: org, AmountMicros: amount, Reference: ref, Actor: actor, Reason: reason})
	} else {
		_, added, err = c.d.Billing.Credits.Credit(uctx, credits.CreditInput{OrgID: org, Kind: kind, AmountMicros: amount, Actor: actor, Reason: reason, Reference: ref})
	}
	notice := "Recorded " + string(kind) + " of " + components.USD(amount) + "."
	if err == nil && !added {
		notice = "That reference was already recorded; nothing was added."
	}
	return c.operatorAnswer(ctx, notice, err, nil)
}

// splitField reads a comma-separated form field.
func splitField(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// operatorCreatePlan handles POST /operator/plans.
func (c *Console) operatorCreatePlan(ctx *fiber.Ctx) error {
	in := credits.PlanInput{Name: formValue(ctx, "name"), Providers: splitField(formValue(ctx, "providers")), Models: splitField(formValue(ctx, "models"))}
	mult, err := strconv.ParseFloat(formValue(ctx, "multiplier"), 64)
	if err != nil || math.IsNaN(mult) || mult <= 0 || mult > 100 {
		return c.operatorAnswer(ctx, "", &credits.FieldError{Field: "multiplier", Message: "must be a number above 0, e.g. 1.2"}, nil)
	}
	in.MultiplierBP = int64(math.Round(mult * credits.BasisPoints))
	if v := formValue(ctx, "included"); v != "" {
		if in.IncludedMonthlyMicros, err = usdMicros("included", v); err != nil {
			return c.operatorAnswer(ctx, "", err, nil)
		}
	}
	if v := formValue(ctx, "byok_fee"); v != "" {
		fee, ferr := strconv.ParseFloat(v, 64)
		if ferr != nil || math.IsNaN(fee) {
			return c.operatorAnswer(ctx, "", &credits.FieldError{Field: "byok_fee", Message: "must be a percentage, e.g. 5"}, nil)
		}
		in.BYOKFeeBP = int64(math.Round(fee * 100))
	}
	for _, f := range []struct {
		field string
		to    *int
	}{{"default_rpm", &in.Defaults.RPM}, {"default_tpm", &in.Defaults.TPM}, {"default_max_concurrency", &in.Defaults.MaxConcurrency}} {
		v := strings.TrimSpace(formValue(ctx, f.field))
		if v == "" {
			continue
		}
		n, ierr := strconv.Atoi(v)
		if ierr != nil {
			return c.operatorAnswer(ctx, "", &credits.FieldError{Field: f.field, Message: "must be a whole number, 0 (no default) or more"}, nil)
		}
		*f.to = n // SavePlan bounds it
	}
	_, err = c.d.Billing.Credits.SavePlan(ctx.UserContext(), in, c.d.Billing.KnownProvider)
	return c.operatorAnswer(ctx, "Plan "+in.Name+" created.", err, nil)
}

// planDefaults shows a plan's default limits ("none" without any).
func planDefaults(l credits.Limits) string {
	var parts []string
	for _, d := range []struct {
		n    int
		unit string
	}{{l.RPM, " rpm"}, {l.TPM, " tpm"}, {l.MaxConcurrency, " in flight"}} {
		if d.n > 0 {
			parts = append(parts, strconv.Itoa(d.n)+d.unit)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// operatorAddCredential handles POST /operator/credentials (the secret is
// sealed and never echoed).
func (c *Console) operatorAddCredential(ctx *fiber.Ctx) error {
	_, err := c.d.Credentials.Add(ctx.UserContext(), platformActor(ctx), tenancy.CredentialInput{Provider: formValue(ctx, "provider"),
		Label: formValue(ctx, "label"), Secret: utils.CopyString(ctx.FormValue("secret")), BaseURL: formValue(ctx, "base_url")})
	if errors.Is(err, tenancy.ErrConflict) {
		err = &credits.FieldError{Field: "provider", Message: "already has a platform credential; delete it first"}
	}
	return c.operatorAnswer(ctx, "Platform credential added.", err, nil)
}

// operatorTestCredential handles POST /operator/credentials/:id/test: the
// health of a platform credential against its upstream.
func (c *Console) operatorTestCredential(ctx *fiber.Ctx) error {
	id := param(ctx, "id")
	uctx := ctx.UserContext()
	s, err := c.d.Credentials.Reveal(uctx, platformActor(ctx), id)
	if err != nil {
		return c.operatorAnswer(ctx, "", err, nil)
	}
	testErr := c.api.runTest(uctx, credits.PlatformOrgID, s.Provider, s.BaseURL, s.Value)
	return c.operatorAnswer(ctx, "", nil, func(p *opview.ContentProps) {
		for i := range p.Credentials {
			if p.Credentials[i].ID == id {
				p.Credentials[i].Test, p.Credentials[i].TestOK = "ok", testErr == nil
				if testErr != nil {
					p.Credentials[i].Test = publicMessage(testErr)
				}
			}
		}
	})
}

func (c *Console) operatorDeleteCredential(ctx *fiber.Ctx) error {
	err := c.d.Credentials.Delete(ctx.UserContext(), platformActor(ctx), param(ctx, "id"))
	return c.operatorAnswer(ctx, "Platform credential deleted.", err, nil)
}

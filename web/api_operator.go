package web

import (
	"context"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/tenancy"
)

// BillingDeps are hosted billing's collaborators (the operator API and
// pages, the tenant's billing surfaces).
type BillingDeps struct {
	// Credits keeps operators, plans and the ledger.
	Credits *credits.Service
	// KnownProvider reports whether a plan may name a provider.
	KnownProvider func(string) bool
	// Payments credits top-ups (the operator API is its first caller).
	Payments PaymentProvider
	// CredentialName maps a catalog provider to the credential name plans
	// list ("openai-responses" uses "openai").
	CredentialName func(provider string) string
}

// PaymentProvider is the port top-ups come through: a payment provider's
// confirmed payment becomes a top-up, idempotent by its reference. Credit
// blocks on the ledger; it returns the stored entry and whether it was
// added now.
type PaymentProvider interface {
	Credit(ctx context.Context, p Payment) (*credits.Entry, bool, error)
}

// Payment is one confirmed payment.
type Payment struct {
	OrgID        string
	AmountMicros int64
	Reference    string // the provider's payment id
	Actor        string
	Reason       string
}

// operatorKey marks a request whose user holds the operator role.
type operatorKey struct{}

// requireOperator lets operators through and refuses everyone else with
// 403 credits.not_operator.
func (a *API) requireOperator(c *fiber.Ctx) error {
	if err := a.checkOperator(c); err != nil {
		return a.fail(c, err)
	}
	return c.Next()
}

// checkOperator returns nil when the request's user is an operator.
func (a *API) checkOperator(c *fiber.Ctx) error {
	if ok, _ := c.Locals(operatorKey{}).(bool); ok {
		return nil
	}
	err := a.d.Billing.Credits.RequireOperator(c.UserContext(), AuthOf(c).UserID)
	if err == nil {
		c.Locals(operatorKey{}, true)
	}
	return err
}

// mountOperator registers /api/v1/operator/... on auth (authenticated).
func (a *API) mountOperator(auth fiber.Router) {
	op := auth.Group("/operator", a.requireOperator)
	op.Get("/orgs", a.opOrgs)
	op.Put("/orgs/:id/plan", a.opSetPlan)
	op.Post("/orgs/:id/credits", a.opCredit)
	op.Post("/orgs/:id/topups", a.opTopUp)
	op.Get("/orgs/:id/ledger", a.opLedger)
	op.Get("/plans", a.opPlans)
	op.Post("/plans", a.opSavePlan)
	op.Put("/plans/:id", a.opSavePlan)
	op.Get("/credentials", a.opCredentials)
	op.Post("/credentials", a.opAddCredential)
	op.Post("/credentials/:id/test", a.opTestCredential)
	op.Post("/credentials/:id/rotate", a.opRotateCredential)
	op.Delete("/credentials/:id", a.opDeleteCredential)
	op.Get("/operators", a.opOperators)
	op.Post("/operators", a.opAddOperator)
	a.mountOperatorStale(op)
}

// orgSummaryView is one organisation in the operator's list.
type orgSummaryView struct {
	ID             string     `json:"id"`
	Name           string     `json:"name"`
	Slug           string     `json:"slug"`
	PlanID         string     `json:"plan_id"`
	PlanName       string     `json:"plan_name"`
	BalanceMicros  int64      `json:"balance_micros"`
	ReservedMicros int64      `json:"reserved_micros"`
	SpentMicros    int64      `json:"spent_this_month_micros"`
	LastActivity   *time.Time `json:"last_activity"`
}

func (a *API) opOrgs(c *fiber.Ctx) error {
	ss, err := a.d.Billing.Credits.OrgSummaries(c.UserContext())
	if err != nil {
		return a.fail(c, err)
	}
	out := make([]orgSummaryView, len(ss))
	for i, s := range ss {
		out[i] = orgSummaryView{ID: s.OrgID, Name: s.Name, Slug: s.Slug, PlanID: s.PlanID, PlanName: s.PlanName,
			BalanceMicros: s.BalanceMicros, ReservedMicros: s.ReservedMicros, SpentMicros: s.SpentMicros, LastActivity: s.LastActivity}
	}
	return c.JSON(fiber.Map{"orgs": out})
}

// operatorOrg is the :id organisation, which must exist and not be the
// platform's own.
func (a *API) operatorOrg(c *fiber.Ctx) (string, error) {
	id := param(c, "id")
	if id == credits.PlatformOrgID {
		return "", tenancy.ErrNotFound
	}
	o, err := a.d.Accounts.OrgByRef(c.UserContext(), id)
	if err != nil {
		return "", err
	}
	if o.ID == credits.PlatformOrgID { // named by its slug
		return "", tenancy.ErrNotFound
	}
	return o.ID, nil
}

type setPlanRequest struct {
	PlanID string `json:"plan_id"`
}

func (a *API) opSetPlan(c *fiber.Ctx) error {
	org, err := a.operatorOrg(c)
	if err != nil {
		return a.fail(c, err)
	}
	var req setPlanRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	if err := a.d.Billing.Credits.AssignPlan(c.UserContext(), org, req.PlanID); err != nil {
		return a.fail(c, err)
	}
	a.d.Logger.InfoContext(c.UserContext(), "organisation plan set", "org_id", org, "plan_id", req.PlanID, "operator", AuthOf(c).UserID)
	return c.JSON(fiber.Map{"org_id": org, "plan_id": req.PlanID})
}

type creditRequest struct {
	Kind         string `json:"kind"`
	AmountMicros int64  `json:"amount_micros"`
	Reason       string `json:"reason"`
	Reference    string `json:"reference"`
	RequestID    string `json:"request_id"`
}

// opCredit handles POST /api/v1/operator/orgs/:id/credits: a grant,
// refund or adjustment (top-ups come through /topups).
func (a *API) opCredit(c *fiber.Ctx) error {
	org, err := a.operatorOrg(c)
	if err != nil {
		return a.fail(c, err)
	}
	var req creditRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	if credits.Kind(req.Kind) == credits.KindTopUp {
		return a.fail(c, &credits.FieldError{Field: "kind", Message: "top-ups go through POST /api/v1/operator/orgs/:id/topups"})
	}
	e, added, err := a.d.Billing.Credits.Credit(c.UserContext(), credits.CreditInput{OrgID: org, Kind: credits.Kind(req.Kind),
		AmountMicros: req.AmountMicros, Actor: AuthOf(c).UserID, Reason: req.Reason, Reference: req.Reference, RequestID: req.RequestID})
	return a.entryAnswer(c, e, added, err)
}

type topUpRequest struct {
	AmountMicros int64  `json:"amount_micros"`
	Reference    string `json:"reference"`
	Reason       string `json:"reason"`
}

// opTopUp handles POST /api/v1/operator/orgs/:id/topups through the
// payment-provider port: a repeated reference answers 200 with the
// original entry and adds nothing.
func (a *API) opTopUp(c *fiber.Ctx) error {
	org, err := a.operatorOrg(c)
	if err != nil {
		return a.fail(c, err)
	}
	var req topUpRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	e, added, err := a.d.Billing.Payments.Credit(c.UserContext(), Payment{OrgID: org, AmountMicros: req.AmountMicros,
		Reference: req.Reference, Actor: AuthOf(c).UserID, Reason: req.Reason})
	return a.entryAnswer(c, e, added, err)
}

func (a *API) entryAnswer(c *fiber.Ctx, e *credits.Entry, added bool, err error) error {
	if err != nil {
		return a.fail(c, err)
	}
	status := fiber.StatusOK
	if added {
		status = fiber.StatusCreated
		a.d.Logger.InfoContext(c.UserContext(), "credit entry added", "org_id", e.OrgID, "entry_id", e.ID, "kind", string(e.Kind),
			"amount_micros", e.AmountMicros, "operator", AuthOf(c).UserID)
	}
	return c.Status(status).JSON(viewEntry(e))
}

func (a *API) opLedger(c *fiber.Ctx) error {
	org, err := a.operatorOrg(c)
	if err != nil {
		return a.fail(c, err)
	}
	return a.ledgerPage(c, org)
}

// entryView is one ledger entry as the API shows it.
type entryView struct {
	ID           string    `json:"id"`
	Kind         string    `json:"kind"`
	AmountMicros int64     `json:"amount_micros"`
	Actor        string    `json:"actor"`
	Reason       string    `json:"reason"`
	RequestID    string    `json:"request_id,omitempty"`
	Reference    string    `json:"reference,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
}

func viewEntry(e *credits.Entry) entryView {
	return entryView{ID: e.ID, Kind: string(e.Kind), AmountMicros: e.AmountMicros, Actor: e.Actor, Reason: e.Reason,
		RequestID: e.RequestID, Reference: e.Reference, CreatedAt: e.CreatedAt}
}

// ledgerPage answers one page of orgID's ledger (?before=ID&limit=N),
// newest first, with the cursor of the next page.
func (a *API) ledgerPage(c *fiber.Ctx, orgID string) error {
	limit, _ := strconv.Atoi(c.Query("limit"))
	es, err := a.d.Billing.Credits.Entries(c.UserContext(), orgID, credits.EntryQuery{Before: c.Query("before"), Limit: limit})
	if err != nil {
		return a.fail(c, err)
	}
	out := make([]entryView, len(es))
	for i := range es {
		out[i] = viewEntry(&es[i])
	}
	next := ""
	if len(es) > 0 && (limit <= 0 && len(es) == credits.DefaultPage || limit > 0 && len(es) == limit) {
		next = es[len(es)-1].ID
	}
	return c.JSON(fiber.Map{"entries": out, "next": next})
}

func (a *API) opOperators(c *fiber.Ctx) error {
	ops, err := a.d.Billing.Credits.Operators(c.UserContext())
	if err != nil {
		return a.fail(c, err)
	}
	type view struct {
		UserID    string    `json:"user_id"`
		Email     string    `json:"email"`
		CreatedBy string    `json:"created_by"`
		CreatedAt time.Time `json:"created_at"`
	}
	out := make([]view, len(ops))
	for i, o := range ops {
		out[i] = view{o.UserID, o.Email, o.CreatedBy, o.CreatedAt}
	}
	return c.JSON(fiber.Map{"operators": out})
}

type addOperatorRequest struct {
	Email string `json:"email"`
}

// opAddOperator grants the operator role to a signed-up user by email.
func (a *API) opAddOperator(c *fiber.Ctx) error {
	var req addOperatorRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	ctx := c.UserContext()
	u, err := a.d.Accounts.UserByEmail(ctx, req.Email)
	if err != nil {
		return a.fail(c, err)
	}
	if err := a.d.Billing.Credits.AddOperator(ctx, u.ID, AuthOf(c).UserID); err != nil {
		return a.fail(c, err)
	}
	a.d.Logger.InfoContext(ctx, "operator added", "user_id", u.ID, "by", AuthOf(c).UserID)
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"user_id": u.ID, "email": u.Email})
}

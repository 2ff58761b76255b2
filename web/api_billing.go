package web

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/credits"
)

// reservationView is one reservation in flight.
type reservationView struct {
	ID           string    `json:"id"`
	RequestID    string    `json:"request_id"`
	AmountMicros int64     `json:"amount_micros"`
	CreatedAt    time.Time `json:"created_at"`
}

// modelPriceView is a model's price per million tokens at the plan's
// prices, in dollars.
type modelPriceView struct {
	Model      string  `json:"model"`
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
}

// billingView is the body of GET /api/v1/billing.
type billingView struct {
	BalanceMicros   int64             `json:"balance_micros"`
	ReservedMicros  int64             `json:"reserved_micros"`
	AvailableMicros int64             `json:"available_micros"`
	Reservations    []reservationView `json:"reservations"`
	Plan            *planView         `json:"plan"`
	Prices          []modelPriceView  `json:"prices"`
	// Usage is this UTC month's debits by model and key.
	Usage []usageView `json:"usage_this_month"`
}

// usageView is one model and key's debits.
type usageView struct {
	Model    string `json:"model"`
	KeyID    string `json:"key_id"`
	Requests int    `json:"requests"`
	Micros   int64  `json:"micros"`
}

// billingState reads orgID's balance, reservations, plan and its prices.
func (a *API) billingState(ctx context.Context, orgID string) (billingView, error) {
	cr := a.d.Billing.Credits
	acct, err := cr.Account(ctx, orgID)
	if err != nil {
		return billingView{}, err
	}
	rs, err := cr.Reservations(ctx, orgID)
	if err != nil {
		return billingView{}, err
	}
	plan, err := cr.OrgPlan(ctx, orgID)
	if err != nil {
		return billingView{}, err
	}
	now := time.Now().UTC()
	from := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	us, err := cr.Usage(ctx, orgID, from, from.AddDate(0, 1, 0))
	if err != nil {
		return billingView{}, err
	}
	v := billingView{BalanceMicros: acct.BalanceMicros, ReservedMicros: acct.ReservedMicros, AvailableMicros: acct.Available(),
		Reservations: make([]reservationView, len(rs)), Prices: []modelPriceView{}, Usage: make([]usageView, len(us))}
	for i, u := range us {
		v.Usage[i] = usageView{Model: u.Model, KeyID: u.KeyID, Requests: u.Requests, Micros: u.Micros}
	}
	for i, r := range rs {
		v.Reservations[i] = reservationView{ID: r.ID, RequestID: r.RequestID, AmountMicros: r.AmountMicros, CreatedAt: r.CreatedAt}
	}
	if plan == nil {
		return v, nil
	}
	pv := viewPlan(plan)
	v.Plan = &pv
	models, err := a.d.Models(ctx, orgID)
	if err != nil {
		return billingView{}, err
	}
	mult := float64(plan.MultiplierBP) / credits.BasisPoints
	for _, m := range models {
		for _, b := range m.Bindings {
			if plan.AllowsPlatform(a.d.Billing.CredentialName(b.Provider), m.ID) || plan.AllowsPlatform(b.Provider, m.ID) {
				v.Prices = append(v.Prices, modelPriceView{Model: m.ID, Input: m.Price.Input * mult, Output: m.Price.Output * mult,
					CacheRead: m.Price.CacheRead * mult, CacheWrite: m.Price.CacheWrite * mult})
				break
			}
		}
	}
	return v, nil
}

// getBilling handles GET /api/v1/billing: the organisation's prepaid
// balance, reservations in flight, plan and its prices.
func (a *API) getBilling(c *fiber.Ctx) error {
	act, err := a.settingsActor(c, false)
	if err != nil {
		return a.fail(c, err)
	}
	v, err := a.billingState(c.UserContext(), act.OrgID)
	if err != nil {
		return a.fail(c, err)
	}
	return c.JSON(v)
}

// getLedger handles GET /api/v1/billing/ledger?before=ID&limit=N.
func (a *API) getLedger(c *fiber.Ctx) error {
	act, err := a.settingsActor(c, false)
	if err != nil {
		return a.fail(c, err)
	}
	return a.ledgerPage(c, act.OrgID)
}

// getStatement handles GET /api/v1/billing/statements/:month
// (?format=json, csv or pdf): the organisation's monthly statement.
func (a *API) getStatement(c *fiber.Ctx) error {
	st, org, format, err := a.statement(c)
	if err != nil {
		return a.fail(c, err)
	}
	return sendStatement(c, st, org, format)
}

// statement reads the caller's organisation's statement of the :month
// parameter, its name and the ?format asked for.
func (a *API) statement(c *fiber.Ctx) (*credits.Statement, string, string, error) {
	act, err := a.settingsActor(c, false)
	if err != nil {
		return nil, "", "", err
	}
	month, err := credits.ParseMonth(param(c, "month"))
	if err != nil {
		return nil, "", "", err
	}
	format := c.Query("format", "json")
	if format != "json" && format != "csv" && format != "pdf" {
		return nil, "", "", &credits.FieldError{Field: "format", Message: "must be json, csv or pdf"}
	}
	ctx := c.UserContext()
	st, err := a.d.Billing.Credits.Statement(ctx, act.OrgID, month)
	if err != nil {
		return nil, "", "", err
	}
	org, err := a.d.Accounts.Org(ctx, act)
	if err != nil {
		return nil, "", "", err
	}
	return st, org.Name, format, nil
}

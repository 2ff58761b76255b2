package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/tenancy"
)

// BudgetDeps are the budget surfaces' collaborators (GET/PUT
// /api/v1/budgets and the console's /budgets); both are required.
type BudgetDeps struct {
	// Settings reads and changes organisations' budget settings.
	Settings *billing.OrgBudgets
	// Spend reads what organisations and keys have spent.
	Spend *billing.Budgets
	// ConcurrencyCeiling is the most an organisation may set as its own
	// max_concurrency: what the operator gives it (HEDDLE_ORG_CONCURRENCY,
	// or its plan's default cap when higher). An error fails the save.
	ConcurrencyCeiling func(ctx context.Context, orgID string) (int, error)
}

// errAboveOperatorLimit means an organisation asked for a concurrency cap
// above what the operator gives it (422).
var errAboveOperatorLimit = errors.New("web: max_concurrency above the operator's limit")

// budgetUsage is one budget and what was spent in its current period.
type budgetUsage struct {
	LimitMicros int64     `json:"limit_micros"` // 0: no budget
	Mode        string    `json:"mode"`         // hard or soft
	SpentMicros int64     `json:"spent_micros"`
	ResetsAt    time.Time `json:"resets_at"`
}

func usageOf(s billing.BudgetStatus) budgetUsage {
	mode := billing.Hard
	if !s.Budget.Hard {
		mode = billing.Soft
	}
	return budgetUsage{LimitMicros: s.Budget.LimitMicros, Mode: string(mode), SpentMicros: s.SpentMicros, ResetsAt: s.ResetAt.UTC()}
}

// orgBudgetsView is the organisation's budgets as the API shows them.
type orgBudgetsView struct {
	Daily   budgetUsage `json:"daily"`
	Monthly budgetUsage `json:"monthly"`
	// MaxConcurrency is the organisation's own cap on requests in flight
	// per replica; 0 means the operator's default.
	MaxConcurrency int        `json:"max_concurrency"`
	UpdatedAt      *time.Time `json:"updated_at"`
}

// keyBudgetsView is one key's budgets (always hard) and spending.
type keyBudgetsView struct {
	ID      string      `json:"id"`
	Name    string      `json:"name"`
	Prefix  string      `json:"prefix"`
	Status  string      `json:"status"`
	Daily   budgetUsage `json:"daily"`
	Monthly budgetUsage `json:"monthly"`
}

// budgetsView is the body of GET and PUT /api/v1/budgets.
type budgetsView struct {
	Org  orgBudgetsView   `json:"org"`
	Keys []keyBudgetsView `json:"keys"`
}

// budgetState reads act's organisation's budget settings (from the store,
// not the request path's cache), its keys, and what each has spent in the
// periods that contain now.
func (a *API) budgetState(ctx context.Context, act tenancy.Actor, now time.Time) (budgetsView, error) {
	s, err := a.d.Budgets.Settings.Load(ctx, act.OrgID)
	if err != nil {
		return budgetsView{}, err
	}
	ks, err := a.d.Keys.List(ctx, act)
	if err != nil {
		return budgetsView{}, err
	}
	bs := s.Budgets(act.OrgID)
	for i := range ks {
		bs = append(bs,
			billing.Budget{Scope: billing.KeyScope(ks[i].ID), Period: billing.Day, LimitMicros: ks[i].Limits.DailyBudgetMicros, Hard: !ks[i].Limits.SoftBudgets},
			billing.Budget{Scope: billing.KeyScope(ks[i].ID), Period: billing.Month, LimitMicros: ks[i].Limits.MonthlyBudgetMicros, Hard: !ks[i].Limits.SoftBudgets})
	}
	st, err := a.d.Budgets.Spend.Usage(ctx, bs, now)
	if err != nil {
		return budgetsView{}, err
	}
	v := budgetsView{Org: orgBudgetsView{Daily: usageOf(st[0]), Monthly: usageOf(st[1]), MaxConcurrency: s.MaxConcurrency}, Keys: make([]keyBudgetsView, len(ks))}
	if !s.UpdatedAt.IsZero() {
		u := s.UpdatedAt.UTC()
		v.Org.UpdatedAt = &u
	}
	for i := range ks {
		kv := viewKey(&ks[i], now)
		v.Keys[i] = keyBudgetsView{ID: kv.ID, Name: kv.Name, Prefix: kv.Prefix, Status: kv.Status,
			Daily: usageOf(st[2+2*i]), Monthly: usageOf(st[3+2*i])}
	}
	return v, nil
}

// getBudgets handles GET /api/v1/budgets: the organisation's budgets and
// spending this UTC day and month, and every key's.
func (a *API) getBudgets(c *fiber.Ctx) error {
	act, err := a.settingsActor(c, false)
	if err != nil {
		return a.fail(c, err)
	}
	v, err := a.budgetState(c.UserContext(), act, time.Now())
	if err != nil {
		return a.fail(c, err)
	}
	return c.JSON(v)
}

// budgetsRequest is the body of PUT /api/v1/budgets: the whole settings.
// A limit absent or null is 0 (no budget); a mode absent is hard.
type budgetsRequest struct {
	DailyLimitMicros   json.RawMessage `json:"daily_limit_micros"`
	DailyMode          *string         `json:"daily_mode"`
	MonthlyLimitMicros json.RawMessage `json:"monthly_limit_micros"`
	MonthlyMode        *string         `json:"monthly_mode"`
	// MaxConcurrency absent or null is 0 (the operator's default).
	MaxConcurrency json.RawMessage `json:"max_concurrency"`
}

// limitMicros parses a limit: a JSON integer of micro-dollars, 0 or more
// (1.5, "5" and 1e3 are refused, naming field).
func limitMicros(field string, raw json.RawMessage) (int64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n < 0 {
		return 0, &billing.FieldError{Field: field, Message: "must be a whole number of micro-dollars, 0 (no budget) or more"}
	}
	return n, nil
}

func mode(m *string) billing.Mode {
	if m == nil {
		return billing.Hard
	}
	return billing.Mode(*m)
}

// settings turns the request into settings (Set validates the modes).
func (r budgetsRequest) settings() (billing.OrgBudgetSettings, error) {
	s := billing.OrgBudgetSettings{Daily: billing.OrgLimit{Mode: mode(r.DailyMode)}, Monthly: billing.OrgLimit{Mode: mode(r.MonthlyMode)}}
	var err error
	if s.Daily.LimitMicros, err = limitMicros("daily_limit_micros", r.DailyLimitMicros); err != nil {
		return s, err
	}
	if s.Monthly.LimitMicros, err = limitMicros("monthly_limit_micros", r.MonthlyLimitMicros); err != nil {
		return s, err
	}
	n, err := limitMicros("max_concurrency", r.MaxConcurrency)
	if err != nil || n > billing.MaxOrgConcurrency {
		return s, &billing.FieldError{Field: "max_concurrency", Message: fmt.Sprintf("must be a whole number, 0 (the operator's default) to %d", billing.MaxOrgConcurrency)}
	}
	s.MaxConcurrency = int(n)
	return s, nil
}

// putBudgets handles PUT /api/v1/budgets (admins and owners): it replaces
// the organisation's budget settings and answers like GET.
func (a *API) putBudgets(c *fiber.Ctx) error {
	act, err := a.settingsActor(c, true)
	if err != nil {
		return a.fail(c, err)
	}
	var req budgetsRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	s, err := req.settings()
	if err == nil {
		err = a.saveBudgets(c.UserContext(), act, s, "api")
	}
	if err != nil {
		return a.fail(c, err)
	}
	v, err := a.budgetState(c.UserContext(), act, time.Now())
	if err != nil {
		return a.fail(c, err)
	}
	return c.JSON(v)
}

// saveBudgets validates and stores s as act's organisation's budgets (the
// API and the console both save through it) and logs the change.
func (a *API) saveBudgets(ctx context.Context, act tenancy.Actor, s billing.OrgBudgetSettings, via string) error {
	if s.MaxConcurrency > 0 {
		ceil, err := a.d.Budgets.ConcurrencyCeiling(ctx, act.OrgID)
		if err != nil {
			return err
		}
		if ceil > 0 && s.MaxConcurrency > ceil {
			return fmt.Errorf("%w: %w", errAboveOperatorLimit, &billing.FieldError{Field: "max_concurrency",
				Message: fmt.Sprintf("must be at most %d, the operator's limit for this organisation (empty or 0 uses that limit)", ceil)})
		}
	}
	saved, err := a.d.Budgets.Settings.Set(ctx, act.OrgID, s)
	if err != nil {
		return err
	}
	a.d.Logger.InfoContext(ctx, "organisation budgets updated", "org_id", act.OrgID, "user_id", act.UserID,
		"daily_limit_micros", saved.Daily.LimitMicros, "daily_mode", string(saved.Daily.Mode),
		"monthly_limit_micros", saved.Monthly.LimitMicros, "monthly_mode", string(saved.Monthly.Mode),
		"max_concurrency", saved.MaxConcurrency, "via", via)
	return nil
}

package web

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/tenancy"
)

type keyRequest struct {
	Name                string     `json:"name"`
	Scopes              []string   `json:"scopes"`
	Policy              string     `json:"policy"`
	Alpha               *float64   `json:"alpha"`
	RPM                 int        `json:"rpm"`
	TPM                 int        `json:"tpm"`
	DailyBudgetMicros   int64      `json:"daily_budget_micros"`
	MonthlyBudgetMicros int64      `json:"monthly_budget_micros"`
	BudgetMode          string     `json:"budget_mode"` // "hard" (default) or "soft"
	Tags                []string   `json:"tags"`
	ExpiresAt           *time.Time `json:"expires_at"`
}

type createdKey struct {
	Key keyView `json:"key"`
	// Secret is the key itself, shown this once.
	Secret string `json:"secret"`
}

func scopes(in []string) []tenancy.Scope {
	if in == nil {
		return nil
	}
	out := make([]tenancy.Scope, len(in))
	for i, s := range in {
		out[i] = tenancy.Scope(s)
	}
	return out
}

// listKeys handles GET /api/v1/keys.
func (a *API) listKeys(c *fiber.Ctx) error {
	act, err := a.actor(c)
	if err != nil {
		return a.fail(c, err)
	}
	ks, err := a.d.Keys.List(c.UserContext(), act)
	if err != nil {
		return a.fail(c, err)
	}
	now := time.Now()
	out := make([]keyView, len(ks))
	for i := range ks {
		out[i] = viewKey(&ks[i], now)
	}
	return c.JSON(fiber.Map{"keys": out})
}

// createKey handles POST /api/v1/keys; the response holds the key once.
func (a *API) createKey(c *fiber.Ctx) error {
	act, err := a.actor(c)
	if err != nil {
		return a.fail(c, err)
	}
	var req keyRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	soft, err := softBudgets(req.BudgetMode)
	if err != nil {
		return a.fail(c, err)
	}
	k, plain, err := a.d.Keys.Create(c.UserContext(), act, tenancy.KeyInput{
		Name: req.Name, Scopes: scopes(req.Scopes), Policy: tenancy.Policy(req.Policy), Alpha: req.Alpha,
		Limits: tenancy.Limits{RPM: req.RPM, TPM: req.TPM, DailyBudgetMicros: req.DailyBudgetMicros,
			MonthlyBudgetMicros: req.MonthlyBudgetMicros, SoftBudgets: soft},
		Tags: req.Tags, ExpiresAt: req.ExpiresAt,
	})
	if err != nil {
		return a.fail(c, err)
	}
	a.d.Logger.InfoContext(c.UserContext(), "api key created", "org_id", k.OrgID, "key_id", k.ID, "key_prefix", k.Prefix)
	return c.Status(fiber.StatusCreated).JSON(createdKey{Key: viewKey(k, time.Now()), Secret: plain})
}

// getKey handles GET /api/v1/keys/:id.
func (a *API) getKey(c *fiber.Ctx) error {
	act, err := a.actor(c)
	if err != nil {
		return a.fail(c, err)
	}
	k, err := a.d.Keys.Get(c.UserContext(), act, param(c, "id"))
	if err != nil {
		return a.fail(c, err)
	}
	return c.JSON(viewKey(k, time.Now()))
}

type keyPatchRequest struct {
	Name                *string             `json:"name"`
	Scopes              []string            `json:"scopes"`
	Policy              *string             `json:"policy"`
	Alpha               optional[float64]   `json:"alpha"`
	RPM                 *int                `json:"rpm"`
	TPM                 *int                `json:"tpm"`
	DailyBudgetMicros   *int64              `json:"daily_budget_micros"`
	MonthlyBudgetMicros *int64              `json:"monthly_budget_micros"`
	BudgetMode          *string             `json:"budget_mode"`
	Tags                *[]string           `json:"tags"` // replaces the key's tags; [] removes them
	ExpiresAt           optional[time.Time] `json:"expires_at"`
}

// updateKey handles PATCH /api/v1/keys/:id; absent fields stay, null clears
// alpha and expires_at.
func (a *API) updateKey(c *fiber.Ctx) error {
	act, err := a.actor(c)
	if err != nil {
		return a.fail(c, err)
	}
	var req keyPatchRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	p := tenancy.KeyPatch{
		Name: req.Name, Scopes: scopes(req.Scopes), SetAlpha: req.Alpha.Set, Alpha: req.Alpha.Value,
		RPM: req.RPM, TPM: req.TPM, Daily: req.DailyBudgetMicros, Monthly: req.MonthlyBudgetMicros,
		SetExpiry: req.ExpiresAt.Set, ExpiresAt: req.ExpiresAt.Value,
	}
	if req.Tags != nil {
		p.SetTags, p.Tags = true, *req.Tags
	}
	if req.Policy != nil {
		pol := tenancy.Policy(*req.Policy)
		p.Policy = &pol
	}
	if req.BudgetMode != nil {
		soft, err := softBudgets(*req.BudgetMode)
		if err != nil {
			return a.fail(c, err)
		}
		p.SoftBudgets = &soft
	}
	k, err := a.d.Keys.Update(c.UserContext(), act, param(c, "id"), p)
	if err != nil {
		return a.fail(c, err)
	}
	return c.JSON(viewKey(k, time.Now()))
}

// revokeKey handles DELETE /api/v1/keys/:id: the key is revoked (kept for
// the record) and refused from now on.
func (a *API) revokeKey(c *fiber.Ctx) error {
	return a.keyAction(c, "revoked", func(ctx context.Context, act tenancy.Actor, id string) error { return a.d.Keys.Revoke(ctx, act, id) })
}

// reinstateKey handles POST /api/v1/keys/:id/reinstate (admins and owners):
// a key suspended when its creator left serves again.
func (a *API) reinstateKey(c *fiber.Ctx) error {
	return a.keyAction(c, "reinstated", func(ctx context.Context, act tenancy.Actor, id string) error {
		_, err := a.d.Keys.Reinstate(ctx, act, id)
		return err
	})
}

// keyAction runs do on the key :id, logs it as done and answers the key.
func (a *API) keyAction(c *fiber.Ctx, done string, do func(ctx context.Context, act tenancy.Actor, id string) error) error {
	act, err := a.actor(c)
	if err != nil {
		return a.fail(c, err)
	}
	ctx := c.UserContext()
	id := param(c, "id")
	if err := do(ctx, act, id); err != nil {
		return a.fail(c, err)
	}
	k, err := a.d.Keys.Get(ctx, act, id)
	if err != nil {
		return a.fail(c, err)
	}
	a.d.Logger.InfoContext(ctx, "api key "+done, "org_id", k.OrgID, "key_id", k.ID, "key_prefix", k.Prefix)
	return c.JSON(viewKey(k, time.Now()))
}

// softBudgets reads a key's budget_mode: "hard" (or empty, the default)
// refuses once spent, "soft" only alerts.
func softBudgets(mode string) (bool, error) {
	switch mode {
	case "", "hard":
		return false, nil
	case "soft":
		return true, nil
	}
	return false, &tenancy.ValidationError{Field: "budget_mode", Message: `must be "hard" or "soft"`}
}

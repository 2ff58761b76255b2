package web

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/credits"
)

// planView is a plan as the API shows it.
type planView struct {
	ID                    string   `json:"id"`
	Name                  string   `json:"name"`
	Providers             []string `json:"providers"`
	Models                []string `json:"models"`
	MultiplierBP          int64    `json:"multiplier_bp"`
	IncludedMonthlyMicros int64    `json:"included_monthly_micros"`
	BYOKFeeBP             int64    `json:"byok_fee_bp"`
	// The plan's defaults where a key (RPM, TPM) or organisation
	// (concurrency) sets none of its own; 0 is no default.
	DefaultRPM            int       `json:"default_rpm"`
	DefaultTPM            int       `json:"default_tpm"`
	DefaultMaxConcurrency int       `json:"default_max_concurrency"`
	UpdatedAt             time.Time `json:"updated_at"`
}

func viewPlan(p *credits.Plan) planView {
	v := planView{ID: p.ID, Name: p.Name, Providers: p.Providers, Models: p.Models, MultiplierBP: p.MultiplierBP,
		IncludedMonthlyMicros: p.IncludedMonthlyMicros, BYOKFeeBP: p.BYOKFeeBP, UpdatedAt: p.UpdatedAt,
		DefaultRPM: p.Defaults.RPM, DefaultTPM: p.Defaults.TPM, DefaultMaxConcurrency: p.Defaults.MaxConcurrency}
	if v.Providers == nil {
		v.Providers = []string{}
	}
	if v.Models == nil {
		v.Models = []string{}
	}
	return v
}

func (a *API) opPlans(c *fiber.Ctx) error {
	ps, err := a.d.Billing.Credits.Plans(c.UserContext())
	if err != nil {
		return a.fail(c, err)
	}
	out := make([]planView, len(ps))
	for i := range ps {
		out[i] = viewPlan(&ps[i])
	}
	return c.JSON(fiber.Map{"plans": out})
}

type planRequest struct {
	Name                  string   `json:"name"`
	Providers             []string `json:"providers"`
	Models                []string `json:"models"`
	MultiplierBP          int64    `json:"multiplier_bp"`
	IncludedMonthlyMicros int64    `json:"included_monthly_micros"`
	BYOKFeeBP             int64    `json:"byok_fee_bp"`
	DefaultRPM            int      `json:"default_rpm"`
	DefaultTPM            int      `json:"default_tpm"`
	DefaultMaxConcurrency int      `json:"default_max_concurrency"`
}

// opSavePlan handles POST /api/v1/operator/plans (create) and PUT
// /api/v1/operator/plans/:id (replace); organisations on the plan get the
// change from their next request.
func (a *API) opSavePlan(c *fiber.Ctx) error {
	var req planRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	p, err := a.d.Billing.Credits.SavePlan(c.UserContext(), credits.PlanInput{ID: param(c, "id"), Name: req.Name,
		Providers: req.Providers, Models: req.Models, MultiplierBP: req.MultiplierBP,
		IncludedMonthlyMicros: req.IncludedMonthlyMicros, BYOKFeeBP: req.BYOKFeeBP,
		Defaults: credits.Limits{RPM: req.DefaultRPM, TPM: req.DefaultTPM, MaxConcurrency: req.DefaultMaxConcurrency}}, a.d.Billing.KnownProvider)
	if err != nil {
		return a.fail(c, err)
	}
	a.d.Logger.InfoContext(c.UserContext(), "plan saved", "plan_id", p.ID, "operator", AuthOf(c).UserID)
	status := fiber.StatusOK
	if param(c, "id") == "" {
		status = fiber.StatusCreated
	}
	return c.Status(status).JSON(viewPlan(p))
}

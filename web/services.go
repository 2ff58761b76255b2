package web

import (
	"context"
	"errors"
	"fmt"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenantmodel"
)

// Services are the domain services behind the admin API and the console.
// NewAPI and NewConsole take the same value: the console calls these
// services itself, never through the API. Every field is required; a
// missing one fails construction with an error naming it (no surface of a
// deployment answers "not available").
type Services struct {
	Accounts    *tenancy.Accounts
	Members     *tenancy.Members
	Sessions    *tenancy.Sessions
	Keys        *tenancy.Keys
	Credentials *tenancy.Credentials
	// Limiter limits sign-up, log-in and invitation acceptance per client
	// IP and email.
	Limiter *tenancy.LoginLimiter
	// Tester checks a BYOK credential against its upstream.
	Tester CredentialTester
	// RoutingSettings and RoutingBundles keep organisations' routing
	// settings and trained bundles.
	RoutingSettings routing.OrgSettingsStore
	RoutingBundles  routing.OrgBundleStore
	// Training trains uploaded bundles in the background.
	Training TrainingJobs
	// KnownModel reports whether a model id is in the catalog (what
	// trained bundles may score).
	KnownModel func(model string) bool
	// PassThroughModel reports whether a name the catalog lacks passes
	// through to a provider (catalog.PassThroughOf), so that allow and deny
	// lists may name it.
	PassThroughModel func(model string) bool
	// RoutingChanged is called with the organisation id after its routing
	// settings changed (e.g. routing.OrgRouters.Invalidate).
	RoutingChanged func(orgID string)
	// Reader reads request analytics: the cost reports
	// (GET /api/v1/reports/cost, the console's /reports), the dashboard and
	// the requests pages.
	Reader analytics.Reader
	// Budgets serve /api/v1/budgets and the console's /budgets.
	Budgets BudgetDeps
	// TenantModels keeps the organisation's own providers and models
	// (/api/v1/providers, /api/v1/models, the console's /models).
	TenantModels *tenantmodel.Service
	// Privacy is the opt-in content storage (/api/v1/privacy, stored
	// request content, the console's Privacy section).
	Privacy *analytics.Contents
	// Models lists the models an organisation's keys may ask for (the
	// console's Models page).
	Models func(ctx context.Context, orgID string) ([]catalog.Model, error)
	// Billing is hosted billing: the operator API and pages, the tenant's
	// balance, ledger and statements.
	Billing BillingDeps
}

// validate returns an error wrapping ErrMissingService that names every
// field left nil.
func (s Services) validate() error {
	var errs []error
	for _, f := range []struct {
		name    string
		missing bool
	}{
		{"Accounts", s.Accounts == nil}, {"Members", s.Members == nil}, {"Sessions", s.Sessions == nil},
		{"Keys", s.Keys == nil}, {"Credentials", s.Credentials == nil}, {"Limiter", s.Limiter == nil},
		{"Tester", s.Tester == nil}, {"RoutingSettings", s.RoutingSettings == nil},
		{"RoutingBundles", s.RoutingBundles == nil}, {"Training", s.Training == nil}, {"KnownModel", s.KnownModel == nil}, {"PassThroughModel", s.PassThroughModel == nil},
		{"RoutingChanged", s.RoutingChanged == nil}, {"Reader", s.Reader == nil},
		{"Budgets.Settings", s.Budgets.Settings == nil}, {"Budgets.Spend", s.Budgets.Spend == nil},
		{"Budgets.ConcurrencyCeiling", s.Budgets.ConcurrencyCeiling == nil},
		{"TenantModels", s.TenantModels == nil}, {"Privacy", s.Privacy == nil}, {"Models", s.Models == nil},
		{"Billing.Credits", s.Billing.Credits == nil}, {"Billing.KnownProvider", s.Billing.KnownProvider == nil},
		{"Billing.Payments", s.Billing.Payments == nil}, {"Billing.CredentialName", s.Billing.CredentialName == nil},
	} {
		if f.missing {
			errs = append(errs, fmt.Errorf("%w: Services.%s", ErrMissingService, f.name))
		}
	}
	return errors.Join(errs...)
}

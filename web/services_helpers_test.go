package web_test

import (
	"context"
	"gorm.io/gorm"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
	anasql "github.com/heddle-gw/heddle/analytics/sqlstore"
	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/credits"
	creditsql "github.com/heddle-gw/heddle/credits/sqlstore"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/offline"
	"github.com/heddle-gw/heddle/routing/routingtest"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenancy/tenancytest"
	"github.com/heddle-gw/heddle/tenantmodel"
	tmsql "github.com/heddle-gw/heddle/tenantmodel/sqlstore"
	"github.com/heddle-gw/heddle/web"
)

// deps are what a fixture builds the admin API and the console over: every
// service and the settings; a fixtureOpt adjusts them.
type deps struct {
	web.Services
	Logger         *slog.Logger
	CookieSecure   bool
	MaxBundleBytes int64
	Circuits       func(orgID string) []dispatch.Circuit
	RoutePreview   func(ctx context.Context, orgID, model, prompt string) (*gateway.RouteAnswer, error)
}

type fixtureOpt func(*deps)

func (d *deps) apiConfig() web.APIConfig {
	return web.APIConfig{Logger: d.Logger, CookieSecure: d.CookieSecure, MaxBundleBytes: d.MaxBundleBytes}
}

// startJobs runs a training queue over an in-memory job store that stores
// bundles in bundles, until t ends.
func startJobs(t *testing.T, bundles routing.OrgBundleStore) *offline.Jobs {
	j := offline.NewJobs(routingtest.NewJobStore(), bundles, offline.JobsConfig{Workers: 2, Heartbeat: 20 * time.Millisecond}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { j.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return j
}

// servicesFixture are the stores behind newDeps's services that tests read.
type servicesFixture struct {
	reader  *analyticstest.Store
	routing *routingStore
	// credits is hosted billing over the fixture's SQLite database.
	credits  *credits.Service
	payments web.PaymentProvider
	// creditsDB is the database under credits (another service on it can
	// run on its own clock).
	creditsDB *gorm.DB
}

// testPayments records top-ups like app's operator payments.
type testPayments struct{ c *credits.Service }

func (p testPayments) Credit(ctx context.Context, pay web.Payment) (*credits.Entry, bool, error) {
	return p.c.Credit(ctx, credits.CreditInput{OrgID: pay.OrgID, Kind: credits.KindTopUp, AmountMicros: pay.AmountMicros,
		Actor: pay.Actor, Reason: pay.Reason, Reference: pay.Reference})
}

// newDeps returns every service: tenancy's over store, routing over an
// in-memory routingStore, analytics over analyticstest, budgets over
// billingtest, tenant models and stored content over a real SQLite
// database, credential tests by tester.
func newDeps(t *testing.T, store *tenancytest.Memory, logger *slog.Logger, tester web.CredentialTester) (deps, servicesFixture) {
	t.Helper()
	hasher := tenancy.NewHasher(tenancy.PasswordParams{Memory: 64, Time: 1, Threads: 1})
	path := filepath.Join(t.TempDir(), "master.json")
	if _, err := tenancy.EnsureDevKeyset(path); err != nil {
		t.Fatal(err)
	}
	vault, err := tenancy.NewVault(tenancy.FileKeyset(path), store, tenancy.VaultConfig{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	sessions, err := tenancy.NewSessions(store, tenancy.SessionConfig{Secret: []byte(strings.Repeat("s", 40))})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	auth := tenancy.NewAuthenticator(store, tenancy.AuthConfig{Logger: logger})
	creds := tenancy.NewCredentials(store, vault, tenancy.CredentialsConfig{Resolver: tenancy.NewCredentialResolver(store, vault, tenancy.ResolverConfig{})})
	db := testdb.SQLite(t).DB
	sf := servicesFixture{reader: analyticstest.NewStore(), routing: newRoutingStore()}
	// Migration 01400 creates the platform organisation (no members); the
	// memory store needs an owner to hold it.
	now := time.Now().UTC()
	if err := store.CreateAccount(context.Background(), &tenancy.User{ID: "user_platform", Email: "platform@invalid", CreatedAt: now},
		&tenancy.Org{ID: credits.PlatformOrgID, Name: "platform", Slug: "heddle-platform", CreatedAt: now},
		&tenancy.Membership{OrgID: credits.PlatformOrgID, UserID: "user_platform", Role: tenancy.RoleOwner, CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	sf.credits, sf.creditsDB = credits.NewService(creditsql.New(db), credits.Config{}), db
	sf.payments = testPayments{sf.credits}
	b := newBudgets()
	d := deps{Logger: logger, Services: web.Services{
		Accounts:        tenancy.NewAccounts(store, tenancy.AccountsConfig{Hasher: hasher}),
		Members:         tenancy.NewMembers(store, tenancy.MembersConfig{Hasher: hasher}),
		Sessions:        sessions,
		Keys:            tenancy.NewKeys(store, tenancy.KeysConfig{Auth: auth}),
		Credentials:     creds,
		Limiter:         tenancy.NewLoginLimiter(tenancy.LoginLimitConfig{PerIP: tenancy.Rate{PerMinute: 1000, Burst: 1000}, PerIPOrgs: tenancy.Rate{PerMinute: 1000, Burst: 1000}}),
		Tester:          tester,
		RoutingSettings: sf.routing, RoutingBundles: sf.routing, Training: startJobs(t, sf.routing),
		KnownModel:       func(m string) bool { return slices.Contains(testModels, m) },
		PassThroughModel: func(m string) bool { return m == "claude-opus-5-5" }, // the one pass-through name the tests use
		RoutingChanged:   func(org string) { sf.routing.changed = append(sf.routing.changed, org) },
		Reader:           sf.reader,
		Budgets:          b.deps(),
		TenantModels:     tenantmodel.NewService(tmsql.New(db), creds, cat, tenantmodel.Config{}),
		Privacy:          analytics.NewContents(anasql.New(db), vault, analytics.ContentsConfig{}),
		Models: func(context.Context, string) ([]catalog.Model, error) {
			return cat.Models()[:2], nil
		},
		Billing: web.BillingDeps{Credits: sf.credits, KnownProvider: func(p string) bool { _, err := cat.Provider(p); return err == nil },
			Payments: sf.payments, CredentialName: func(p string) string { return p }},
	}}
	return d, sf
}

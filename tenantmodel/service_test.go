package tenantmodel_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenantmodel"
	"github.com/heddle-gw/heddle/tenantmodel/sqlstore"
)

// fakeCreds keeps credentials in memory, one per (org, provider).
type fakeCreds struct {
	byID    map[string]tenancy.Credential
	n       int
	refuse  string // a base URL CheckInput refuses
	deleted []string
}

func (f *fakeCreds) CheckInput(in tenancy.CredentialInput) (tenancy.CredentialInput, error) {
	if in.BaseURL == f.refuse {
		return in, &tenancy.ValidationError{Field: "base_url", Message: "must not point at a private address"}
	}
	if len(in.Secret) < 8 {
		return in, &tenancy.ValidationError{Field: "secret", Message: "too short"}
	}
	return in, nil
}

func (f *fakeCreds) Add(_ context.Context, a tenancy.Actor, in tenancy.CredentialInput) (*tenancy.Credential, error) {
	for _, c := range f.byID {
		if c.OrgID == a.OrgID && c.Provider == in.Provider {
			return nil, tenancy.ErrConflict
		}
	}
	f.n++
	c := tenancy.Credential{ID: fmt.Sprintf("cred-%d", f.n), OrgID: a.OrgID, Provider: in.Provider, BaseURL: in.BaseURL}
	f.byID[c.ID] = c
	return &c, nil
}

func (f *fakeCreds) Delete(_ context.Context, a tenancy.Actor, id string) error {
	c, ok := f.byID[id]
	if !ok || c.OrgID != a.OrgID {
		return tenancy.ErrNotFound
	}
	delete(f.byID, id)
	f.deleted = append(f.deleted, id)
	return nil
}

func newService(t *testing.T) (*tenantmodel.Service, *fakeCreds, *time.Time) {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	creds := &fakeCreds{byID: map[string]tenancy.Credential{}, refuse: "http://10.0.0.1/v1"}
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	svc := tenantmodel.NewService(sqlstore.New(testdb.SQLite(t).DB), creds, cat,
		tenantmodel.Config{CacheTTL: time.Minute, Now: func() time.Time { return now }})
	return svc, creds, &now
}

var (
	ownerA  = tenancy.Actor{UserID: "u1", OrgID: "org-a", Role: tenancy.RoleOwner}
	memberA = tenancy.Actor{UserID: "u2", OrgID: "org-a", Role: tenancy.RoleMember}
	ownerB  = tenancy.Actor{UserID: "u3", OrgID: "org-b", Role: tenancy.RoleOwner}
)

func goodModel() tenantmodel.ModelInput {
	return tenantmodel.ModelInput{ID: "acme-llama", Provider: "acme", Upstream: "meta/llama-3-8b", ContextWindow: 8192,
		MaxOutput: 1024, Tools: true, Price: catalog.Price{Input: 0.2, Output: 0.6}}
}

func TestServiceValidation(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	if _, err := svc.AddProvider(ctx, ownerA, tenantmodel.ProviderInput{Name: "acme", BaseURL: "https://acme.example/v1", Secret: "sk-acme-123456"}); err != nil {
		t.Fatal(err)
	}
	provTests := []struct {
		name  string
		in    tenantmodel.ProviderInput
		field string
	}{
		{"empty name", tenantmodel.ProviderInput{BaseURL: "https://x.example", Secret: "sk-123456789"}, "name"},
		{"upper case name", tenantmodel.ProviderInput{Name: "Acme2", BaseURL: "https://x.example", Secret: "sk-123456789"}, "name"},
		{"catalog provider", tenantmodel.ProviderInput{Name: "openai", BaseURL: "https://x.example", Secret: "sk-123456789"}, "name"},
		{"no base url", tenantmodel.ProviderInput{Name: "acme2", Secret: "sk-123456789"}, "base_url"},
		{"private base url", tenantmodel.ProviderInput{Name: "acme2", BaseURL: "http://10.0.0.1/v1", Secret: "sk-123456789"}, "base_url"},
		{"short secret", tenantmodel.ProviderInput{Name: "acme2", BaseURL: "https://x.example", Secret: "x"}, "secret"},
	}
	for _, tc := range provTests {
		t.Run("provider/"+tc.name, func(t *testing.T) {
			_, err := svc.AddProvider(ctx, ownerA, tc.in)
			var ve *tenancy.ValidationError
			if !errors.As(err, &ve) || ve.Field != tc.field {
				t.Fatalf("err = %v, want a validation error on %s", err, tc.field)
			}
		})
	}
	modelTests := []struct {
		name  string
		edit  func(*tenantmodel.ModelInput)
		field string
	}{
		{"upper case id", func(m *tenantmodel.ModelInput) { m.ID = "Acme-Llama" }, "id"},
		{"catalog id", func(m *tenantmodel.ModelInput) { m.ID = catalogID(t) }, "id"},
		{"auto", func(m *tenantmodel.ModelInput) { m.ID = "auto" }, "id"},
		{"unknown provider", func(m *tenantmodel.ModelInput) { m.Provider = "nobody" }, "provider"},
		{"no upstream", func(m *tenantmodel.ModelInput) { m.Upstream = " " }, "upstream"},
		{"other format", func(m *tenantmodel.ModelInput) { m.Format = llm.FormatGemini }, "format"},
		{"zero context", func(m *tenantmodel.ModelInput) { m.ContextWindow = 0 }, "context_window"},
		{"output over context", func(m *tenantmodel.ModelInput) { m.MaxOutput = 9000 }, "max_output"},
		{"negative price", func(m *tenantmodel.ModelInput) { m.Price.CacheWrite = -1 }, "price.cache_write"},
	}
	for _, tc := range modelTests {
		t.Run("model/"+tc.name, func(t *testing.T) {
			in := goodModel()
			tc.edit(&in)
			_, err := svc.AddModel(ctx, ownerA, in)
			var ve *tenancy.ValidationError
			if !errors.As(err, &ve) || ve.Field != tc.field {
				t.Fatalf("err = %v, want a validation error on %s", err, tc.field)
			}
		})
	}
}

func catalogID(t *testing.T) string {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	return cat.Models()[0].ID
}

func TestServiceLifecycle(t *testing.T) {
	svc, creds, now := newService(t)
	ctx := context.Background()
	in := tenantmodel.ProviderInput{Name: "acme", BaseURL: "https://acme.example/v1", Secret: "sk-acme-123456"}
	if _, err := svc.AddProvider(ctx, memberA, in); !errors.Is(err, tenancy.ErrForbidden) {
		t.Fatalf("member adds provider: %v, want ErrForbidden", err)
	}
	p, err := svc.AddProvider(ctx, ownerA, in)
	if err != nil {
		t.Fatal(err)
	}
	if p.CredentialID != "cred-1" || creds.byID["cred-1"].Provider != "acme" || p.Format != llm.FormatChat {
		t.Fatalf("provider = %+v, credentials = %+v", p, creds.byID)
	}
	if _, err := svc.AddProvider(ctx, ownerA, in); !errors.Is(err, tenancy.ErrConflict) {
		t.Fatalf("second acme: %v, want ErrConflict", err)
	}
	// Org reads are cached; a change through the service invalidates.
	set, err := svc.Org(ctx, "org-a")
	if err != nil || len(set.Providers) != 1 || len(set.Models) != 0 {
		t.Fatalf("set = %+v, %v", set, err)
	}
	m, err := svc.AddModel(ctx, ownerA, goodModel())
	if err != nil {
		t.Fatal(err)
	}
	if m.Format != llm.FormatChat || m.OrgID != "org-a" || !m.CreatedAt.Equal(*now) {
		t.Fatalf("model = %+v", m)
	}
	set, err = svc.Org(ctx, "org-a")
	if err != nil {
		t.Fatal(err)
	}
	got, prov, ok := set.Model("acme-llama")
	if !ok || got.Upstream != "meta/llama-3-8b" || prov.BaseURL != "https://acme.example/v1" {
		t.Fatalf("set.Model = %+v, %+v, %v", got, prov, ok)
	}
	cm := got.Catalog()
	if cm.ID != "acme-llama" || cm.Price.Output != 0.6 || !cm.Capabilities.Tools || len(cm.Bindings) != 1 ||
		cm.Bindings[0] != (catalog.Binding{Provider: "acme", Upstream: "meta/llama-3-8b"}) {
		t.Fatalf("catalog form = %+v", cm)
	}
	if set, _ := svc.Org(ctx, "org-b"); len(set.Models) != 0 {
		t.Fatalf("org-b sees %+v", set.Models)
	}
	if _, err := svc.UpdateModel(ctx, ownerB, "acme-llama", tenantmodel.ModelPatch{}); !errors.Is(err, tenancy.ErrNotFound) {
		t.Fatalf("org-b updates A's model: %v, want ErrNotFound", err)
	}
	price := catalog.Price{Input: 1, Output: 3}
	upd, err := svc.UpdateModel(ctx, ownerA, "acme-llama", tenantmodel.ModelPatch{Price: &price})
	if err != nil || upd.Price != price || upd.Upstream != "meta/llama-3-8b" {
		t.Fatalf("update = %+v, %v", upd, err)
	}
	if set, _ := svc.Org(ctx, "org-a"); set.Models[0].Price != price {
		t.Fatalf("cached set not invalidated: %+v", set.Models[0])
	}
	if err := svc.DeleteProvider(ctx, ownerA, "acme"); !errors.Is(err, tenantmodel.ErrProviderInUse) {
		t.Fatalf("delete provider in use: %v", err)
	}
	if err := svc.DeleteModel(ctx, ownerA, "acme-llama"); err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteProvider(ctx, ownerA, "acme"); err != nil {
		t.Fatal(err)
	}
	if len(creds.deleted) != 1 || creds.deleted[0] != "cred-1" {
		t.Fatalf("credential not deleted with its provider: %v", creds.deleted)
	}
	if set, _ := svc.Org(ctx, "org-a"); len(set.Providers) != 0 {
		t.Fatalf("providers after delete: %+v", set.Providers)
	}
}

// TestServiceOrgCache: another replica's set is at most CacheTTL stale; an
// unreadable store fails closed with ErrUnavailable.
func TestServiceOrgCache(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	db := testdb.SQLite(t).DB
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	creds := &fakeCreds{byID: map[string]tenancy.Credential{}}
	one := tenantmodel.NewService(sqlstore.New(db), creds, cat, tenantmodel.Config{CacheTTL: 3 * time.Second, Now: clock})
	two := tenantmodel.NewService(sqlstore.New(db), creds, cat, tenantmodel.Config{CacheTTL: 3 * time.Second, Now: clock})
	ctx := context.Background()
	if set, err := two.Org(ctx, "org-a"); err != nil || len(set.Models) != 0 {
		t.Fatalf("first read: %+v %v", set, err)
	}
	if _, err := one.AddProvider(ctx, ownerA, tenantmodel.ProviderInput{Name: "acme", BaseURL: "https://acme.example/v1", Secret: "sk-acme-123456"}); err != nil {
		t.Fatal(err)
	}
	if _, err := one.AddModel(ctx, ownerA, goodModel()); err != nil {
		t.Fatal(err)
	}
	if set, _ := two.Org(ctx, "org-a"); len(set.Models) != 0 {
		t.Fatalf("the other replica re-read before its TTL: %+v", set.Models)
	}
	now = now.Add(3 * time.Second)
	if set, _ := two.Org(ctx, "org-a"); len(set.Models) != 1 {
		t.Fatalf("the other replica still stale after its TTL: %+v", set.Models)
	}

	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	sqlDB.Close()
	now = now.Add(3 * time.Second)
	if _, err := two.Org(ctx, "org-a"); !errors.Is(err, tenantmodel.ErrUnavailable) {
		t.Fatalf("closed store: %v, want ErrUnavailable", err)
	}
}

// racingStore runs hook after reading an organisation's models: a change
// (and its Invalidate) landing while a read is in flight.
type racingStore struct {
	tenantmodel.Store
	hook  func()
	reads int
}

func (r *racingStore) OrgModels(ctx context.Context, orgID string) ([]tenantmodel.Model, error) {
	r.reads++
	ms, err := r.Store.OrgModels(ctx, orgID)
	if r.hook != nil {
		h := r.hook
		r.hook = nil
		h()
	}
	return ms, err
}

// TestServiceOrgCacheInvalidateDuringRead: a read that began before an
// Invalidate does not cache what it read, so the next read sees the change.
func TestServiceOrgCacheInvalidateDuringRead(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	store := &racingStore{Store: sqlstore.New(testdb.SQLite(t).DB)}
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	svc := tenantmodel.NewService(store, &fakeCreds{byID: map[string]tenancy.Credential{}}, cat,
		tenantmodel.Config{CacheTTL: time.Minute, Now: func() time.Time { return now }})
	ctx := context.Background()
	store.hook = func() { svc.Invalidate("org-a") }
	if _, err := svc.Org(ctx, "org-a"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Org(ctx, "org-a"); err != nil {
		t.Fatal(err)
	}
	if store.reads != 2 {
		t.Fatalf("%d store reads, want 2: the read overlapping an Invalidate was cached", store.reads)
	}
	if _, err := svc.Org(ctx, "org-a"); err != nil || store.reads != 2 {
		t.Fatalf("a quiet read was not cached: %d reads, %v", store.reads, err)
	}
}

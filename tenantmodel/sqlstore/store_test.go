package sqlstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenantmodel"
	"github.com/heddle-gw/heddle/tenantmodel/sqlstore"
)

func TestStore(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		s := sqlstore.New(d.DB)
		at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
		p := tenantmodel.Provider{OrgID: "org-a", Name: "acme", BaseURL: "https://llm.acme.example/v1",
			Format: llm.FormatChat, CredentialID: "cred-1", CreatedBy: "user-1", CreatedAt: at}
		if err := s.CreateProvider(ctx, &p); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateProvider(ctx, &p); !errors.Is(err, tenancy.ErrConflict) {
			t.Fatalf("duplicate provider: %v, want ErrConflict", err)
		}
		// The same name in another organisation is another provider.
		pb := p
		pb.OrgID, pb.CredentialID = "org-b", "cred-2"
		if err := s.CreateProvider(ctx, &pb); err != nil {
			t.Fatal(err)
		}
		got, err := s.OrgProviders(ctx, "org-a")
		if err != nil || len(got) != 1 || got[0] != p {
			t.Fatalf("providers of org-a = %+v, %v; want [%+v]", got, err, p)
		}

		m := tenantmodel.Model{OrgID: "org-a", ID: "acme-llama", Provider: "acme", Upstream: "meta/llama-3-8b",
			Format: llm.FormatChat, ContextWindow: 8192, MaxOutput: 2048, Tools: true, Vision: false,
			Price: catalog.Price{Input: 0.2, Output: 0.6, CacheRead: 0.05, CacheWrite: 0}, CreatedAt: at, UpdatedAt: at}
		if err := s.CreateModel(ctx, &m); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateModel(ctx, &m); !errors.Is(err, tenancy.ErrConflict) {
			t.Fatalf("duplicate model: %v, want ErrConflict", err)
		}
		orphan := m
		orphan.ID, orphan.Provider = "other", "nobody"
		if err := s.CreateModel(ctx, &orphan); !errors.Is(err, tenancy.ErrNotFound) {
			t.Fatalf("model on a missing provider: %v, want ErrNotFound", err)
		}
		ms, err := s.OrgModels(ctx, "org-a")
		if err != nil || len(ms) != 1 || ms[0] != m {
			t.Fatalf("models of org-a = %+v, %v; want [%+v]", ms, err, m)
		}
		if ms, err := s.OrgModels(ctx, "org-b"); err != nil || len(ms) != 0 {
			t.Fatalf("models of org-b = %+v, %v; want none", ms, err)
		}

		upd := m
		upd.Upstream, upd.ContextWindow, upd.Vision = "meta/llama-3-70b", 32768, true
		upd.Price = catalog.Price{Input: 1, Output: 2, CacheRead: 0.5, CacheWrite: 1.25}
		upd.UpdatedAt = at.Add(time.Hour)
		if err := s.UpdateModel(ctx, &upd); err != nil {
			t.Fatal(err)
		}
		if ms, _ := s.OrgModels(ctx, "org-a"); len(ms) != 1 || ms[0] != upd {
			t.Fatalf("after update = %+v; want %+v", ms, upd)
		}
		other := upd
		other.OrgID = "org-b"
		if err := s.UpdateModel(ctx, &other); !errors.Is(err, tenancy.ErrNotFound) {
			t.Fatalf("update from another org: %v, want ErrNotFound", err)
		}

		if err := s.DeleteProvider(ctx, "org-a", "acme"); !errors.Is(err, tenantmodel.ErrProviderInUse) {
			t.Fatalf("delete provider with models: %v, want ErrProviderInUse", err)
		}
		if err := s.DeleteModel(ctx, "org-b", "acme-llama"); !errors.Is(err, tenancy.ErrNotFound) {
			t.Fatalf("delete model from another org: %v, want ErrNotFound", err)
		}
		if err := s.DeleteModel(ctx, "org-a", "acme-llama"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteProvider(ctx, "org-a", "acme"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteProvider(ctx, "org-a", "acme"); !errors.Is(err, tenancy.ErrNotFound) {
			t.Fatalf("second delete: %v, want ErrNotFound", err)
		}
		if got, _ := s.OrgProviders(ctx, "org-b"); len(got) != 1 {
			t.Fatalf("org-b lost its provider: %+v", got)
		}
	})
}

package tenancy_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/tenancy"
)

func ptr[T any](v T) *T { return &v }

func TestKeysCreate(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	keys := tenancy.NewKeys(w.store, tenancy.KeysConfig{Now: w.clock.Now})
	exp := w.clock.Now().Add(time.Hour)
	k, plain, err := keys.Create(ctx, w.ownerA, tenancy.KeyInput{
		Name: " ci ", Scopes: []tenancy.Scope{tenancy.ScopeAnalyticsRead, tenancy.ScopeInference, tenancy.ScopeInference},
		Policy: tenancy.PolicyRouteAll, Alpha: ptr(0.3), Limits: tenancy.Limits{RPM: 10, TPM: 20, DailyBudgetMicros: 30, MonthlyBudgetMicros: 40},
		ExpiresAt: &exp,
	})
	noErr(t, err)
	hash, prefix, err := tenancy.ParseKey(plain)
	noErr(t, err)
	if k.Hash != hash || k.Prefix != prefix || k.OrgID != w.orgA.ID || k.CreatedBy != w.ownerA.UserID || k.Name != "ci" ||
		k.Policy != tenancy.PolicyRouteAll || *k.Alpha != 0.3 || k.Limits.RPM != 10 || k.Limits.MonthlyBudgetMicros != 40 ||
		len(k.Scopes) != 2 || k.Scopes[0] != tenancy.ScopeInference || k.Scopes[1] != tenancy.ScopeAnalyticsRead ||
		!k.ExpiresAt.Equal(exp) {
		t.Fatalf("created key %+v", k)
	}
	stored, err := w.store.KeyByHash(ctx, hash)
	noErr(t, err)
	if stored.ID != k.ID || stored.Hash == plain {
		t.Fatalf("stored key %+v", stored)
	}

	def, _, err := keys.Create(ctx, w.ownerA, tenancy.KeyInput{Name: "defaults"})
	noErr(t, err)
	if def.Policy != tenancy.PolicyExplicit || len(def.Scopes) != 2 || def.Scopes[0] != tenancy.ScopeInference || def.Scopes[1] != tenancy.ScopeRoute || def.Alpha != nil {
		t.Fatalf("defaults: %+v", def)
	}

	past := w.clock.Now().Add(-time.Second)
	for _, c := range []struct {
		name  string
		in    tenancy.KeyInput
		field string
	}{
		{"no name", tenancy.KeyInput{}, "name"},
		{"bad scope", tenancy.KeyInput{Name: "x", Scopes: []tenancy.Scope{"admin"}}, "scopes"},
		{"bad policy", tenancy.KeyInput{Name: "x", Policy: "cheapest"}, "policy"},
		{"alpha high", tenancy.KeyInput{Name: "x", Alpha: ptr(1.5)}, "alpha"},
		{"alpha negative", tenancy.KeyInput{Name: "x", Alpha: ptr(-0.1)}, "alpha"},
		{"rpm negative", tenancy.KeyInput{Name: "x", Limits: tenancy.Limits{RPM: -1}}, "rpm"},
		{"budget negative", tenancy.KeyInput{Name: "x", Limits: tenancy.Limits{DailyBudgetMicros: -1}}, "daily_budget_micros"},
		{"expired", tenancy.KeyInput{Name: "x", ExpiresAt: &past}, "expires_at"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := keys.Create(ctx, w.ownerA, c.in)
			var ve *tenancy.ValidationError
			if !asValidation(err, &ve) || ve.Field != c.field {
				t.Fatalf("got %v, want a validation error on %s", err, c.field)
			}
		})
	}
}

func TestKeysRolesAndIsolation(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	keys := tenancy.NewKeys(w.store, tenancy.KeysConfig{Now: w.clock.Now})
	member := w.join(t, "m@a.example", tenancy.RoleMember)
	viewer := w.join(t, "v@a.example", tenancy.RoleViewer)
	admin := w.join(t, "ad@a.example", tenancy.RoleAdmin)

	ownerKey, _, err := keys.Create(ctx, w.ownerA, tenancy.KeyInput{Name: "owner's"})
	noErr(t, err)
	memberKey, _, err := keys.Create(ctx, member, tenancy.KeyInput{Name: "member's"})
	noErr(t, err)
	bKey, _, err := keys.Create(ctx, w.ownerB, tenancy.KeyInput{Name: "b's"})
	noErr(t, err)

	_, _, err = keys.Create(ctx, viewer, tenancy.KeyInput{Name: "nope"})
	wantErr(t, err, tenancy.ErrForbidden)
	list, err := keys.List(ctx, viewer)
	noErr(t, err)
	if len(list) != 2 {
		t.Fatalf("viewer sees %d keys, want 2 (org A only)", len(list))
	}
	wantErr(t, keys.Revoke(ctx, viewer, memberKey.ID), tenancy.ErrForbidden)
	wantErr(t, keys.Revoke(ctx, member, ownerKey.ID), tenancy.ErrForbidden)
	_, err = keys.Update(ctx, member, ownerKey.ID, tenancy.KeyPatch{Name: ptr("x")})
	wantErr(t, err, tenancy.ErrForbidden)

	// Org isolation: org B's key is invisible to every actor of org A.
	for _, a := range []tenancy.Actor{w.ownerA, admin, member, viewer} {
		_, err := keys.Get(ctx, a, bKey.ID)
		wantErr(t, err, tenancy.ErrNotFound)
	}
	wantErr(t, keys.Revoke(ctx, w.ownerA, bKey.ID), tenancy.ErrNotFound)
	_, err = keys.Update(ctx, w.ownerA, bKey.ID, tenancy.KeyPatch{Name: ptr("x")})
	wantErr(t, err, tenancy.ErrNotFound)
	if k, _ := w.store.OrgKey(ctx, w.orgB.ID, bKey.ID); k.RevokedAt != nil || k.Name != "b's" {
		t.Fatalf("org B's key changed: %+v", k)
	}

	noErr(t, keys.Revoke(ctx, member, memberKey.ID))
	noErr(t, keys.Revoke(ctx, admin, ownerKey.ID))
	_, err = keys.Update(ctx, admin, ownerKey.ID, tenancy.KeyPatch{Name: ptr("x")})
	wantErr(t, err, tenancy.ErrConflict)
}

func TestKeysUpdate(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	keys := tenancy.NewKeys(w.store, tenancy.KeysConfig{Now: w.clock.Now})
	exp := w.clock.Now().Add(time.Hour)
	k, _, err := keys.Create(ctx, w.ownerA, tenancy.KeyInput{Name: "k", Alpha: ptr(0.5), ExpiresAt: &exp, Limits: tenancy.Limits{RPM: 5, TPM: 6}})
	noErr(t, err)
	pol := tenancy.PolicyRouteAll
	got, err := keys.Update(ctx, w.ownerA, k.ID, tenancy.KeyPatch{
		Name: ptr("renamed"), Scopes: []tenancy.Scope{tenancy.ScopeRoute}, Policy: &pol, SetAlpha: true,
		RPM: ptr(50), Daily: ptr(int64(7)), Monthly: ptr(int64(8)), SetExpiry: true,
	})
	noErr(t, err)
	stored, _ := w.store.OrgKey(ctx, w.orgA.ID, k.ID)
	for _, v := range []*tenancy.Key{got, stored} {
		if v.Name != "renamed" || len(v.Scopes) != 1 || v.Scopes[0] != tenancy.ScopeRoute || v.Policy != pol || v.Alpha != nil ||
			v.Limits != (tenancy.Limits{RPM: 50, TPM: 6, DailyBudgetMicros: 7, MonthlyBudgetMicros: 8}) || v.ExpiresAt != nil {
			t.Fatalf("updated key %+v", v)
		}
	}
	_, err = keys.Update(ctx, w.ownerA, k.ID, tenancy.KeyPatch{SetAlpha: true, Alpha: ptr(2.0)})
	wantErr(t, err, tenancy.ErrInvalidInput)
}

// TestKeysTags: tags are normalised (lower case, sorted, deduplicated) on
// create and update, refused when invalid or too many, and reach the
// principal the gateway authenticates.
func TestKeysTags(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	auth := tenancy.NewAuthenticator(w.store, tenancy.AuthConfig{CacheTTL: -1})
	keys := tenancy.NewKeys(w.store, tenancy.KeysConfig{Now: w.clock.Now, Auth: auth})
	k, plain, err := keys.Create(ctx, w.ownerA, tenancy.KeyInput{Name: "k", Tags: []string{"Team:Search", "ci", "ci"}})
	noErr(t, err)
	if fmt.Sprint(k.Tags) != "[ci team:search]" {
		t.Fatalf("created tags %v", k.Tags)
	}
	p, err := auth.Authenticate(ctx, plain)
	noErr(t, err)
	if fmt.Sprint(p.Tags) != "[ci team:search]" {
		t.Errorf("principal tags %v", p.Tags)
	}
	got, err := keys.Update(ctx, w.ownerA, k.ID, tenancy.KeyPatch{SetTags: true, Tags: []string{"batch"}})
	noErr(t, err)
	stored, _ := w.store.OrgKey(ctx, w.orgA.ID, k.ID)
	if fmt.Sprint(got.Tags) != "[batch]" || fmt.Sprint(stored.Tags) != "[batch]" {
		t.Errorf("updated tags %v, stored %v", got.Tags, stored.Tags)
	}
	many := make([]string, 17)
	for i := range many {
		many[i] = fmt.Sprintf("t%d", i)
	}
	for _, bad := range [][]string{{"has space"}, {""}, many} {
		_, _, err := keys.Create(ctx, w.ownerA, tenancy.KeyInput{Name: "bad", Tags: bad})
		wantErr(t, err, tenancy.ErrInvalidInput)
	}
}

func TestKeysCreateForOrg(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	keys := tenancy.NewKeys(w.store, tenancy.KeysConfig{Now: w.clock.Now})
	for _, ref := range []string{w.orgA.ID, w.orgA.Slug, "ORG-A"} {
		k, plain, err := keys.CreateForOrg(ctx, ref, tenancy.KeyInput{Name: "cli"})
		noErr(t, err)
		if k.OrgID != w.orgA.ID || k.CreatedBy != "" || len(plain) != 43 {
			t.Fatalf("CreateForOrg(%q) = %+v", ref, k)
		}
	}
	_, _, err := keys.CreateForOrg(ctx, "no-such-org", tenancy.KeyInput{Name: "cli"})
	wantErr(t, err, tenancy.ErrNotFound)
}

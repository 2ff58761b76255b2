package tenancytest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/tenancy"
)

func testKeys(t *testing.T, s tenancy.Store) {
	ctx := context.Background()
	u, o := account(t, s, "alice", 0)
	_, other := account(t, s, "bob", 0)
	alpha := 0.25
	exp := base.Add(24 * time.Hour)
	k1 := &tenancy.Key{ID: id(), OrgID: o.ID, CreatedBy: u.ID, Name: "ci", Prefix: "rk_abcdefgh", Hash: "h1",
		Scopes: []tenancy.Scope{tenancy.ScopeInference, tenancy.ScopeAnalyticsRead}, Policy: tenancy.PolicyRouteAll,
		Alpha: &alpha, Limits: tenancy.Limits{RPM: 60, TPM: 100000, DailyBudgetMicros: 5_000_000, MonthlyBudgetMicros: 90_000_000, SoftBudgets: true},
		Tags: []string{"ci", "team:search"}, ExpiresAt: &exp, CreatedAt: base}
	k2 := &tenancy.Key{ID: id(), OrgID: o.ID, Name: "cli", Prefix: "rk_zzzzzzzz", Hash: "h2",
		Scopes: []tenancy.Scope{tenancy.ScopeRoute}, Policy: tenancy.PolicyExplicit, CreatedAt: base.Add(time.Second)}
	k3 := &tenancy.Key{ID: id(), OrgID: other.ID, Name: "theirs", Prefix: "rk_yyyyyyyy", Hash: "h3",
		Scopes: []tenancy.Scope{tenancy.ScopeInference}, Policy: tenancy.PolicyExplicit, CreatedAt: base}
	for _, k := range []*tenancy.Key{k1, k2, k3} {
		mustNil(t, s.CreateKey(ctx, k), "create key "+k.Name)
	}
	dup := *k2
	dup.ID = id()
	mustIs(t, s.CreateKey(ctx, &dup), tenancy.ErrConflict, "duplicate hash")

	got, err := s.KeyByHash(ctx, "h1")
	mustNil(t, err, "key by hash")
	checkKey(t, got, k1)
	got, err = s.KeyByHash(ctx, "h2")
	mustNil(t, err, "key by hash 2")
	checkKey(t, got, k2)
	_, err = s.KeyByHash(ctx, "nope")
	mustIs(t, err, tenancy.ErrNotFound, "unknown hash")

	list, err := s.OrgKeys(ctx, o.ID)
	mustNil(t, err, "org keys")
	if len(list) != 2 || list[0].ID != k2.ID || list[1].ID != k1.ID {
		t.Fatalf("org keys (newest first, own org only): got %d keys", len(list))
	}
	_, err = s.OrgKey(ctx, o.ID, k3.ID)
	mustIs(t, err, tenancy.ErrNotFound, "another org's key")

	upd := *k1
	upd.Name, upd.Scopes, upd.Policy, upd.Alpha = "renamed", []tenancy.Scope{tenancy.ScopeRoute}, tenancy.PolicyExplicit, nil
	upd.Limits, upd.ExpiresAt = tenancy.Limits{RPM: 1}, nil // also turns the budgets back to hard
	upd.Tags = []string{"batch"}
	mustNil(t, s.UpdateKey(ctx, &upd), "update key")
	got, _ = s.OrgKey(ctx, o.ID, k1.ID)
	checkKey(t, got, &upd)
	wrongOrg := *k3
	wrongOrg.OrgID = o.ID
	mustIs(t, s.UpdateKey(ctx, &wrongOrg), tenancy.ErrNotFound, "update another org's key")

	mustIs(t, s.RevokeKey(ctx, o.ID, k3.ID, base), tenancy.ErrNotFound, "revoke another org's key")
	rev := base.Add(time.Hour)
	mustNil(t, s.RevokeKey(ctx, o.ID, k2.ID, rev), "revoke")
	mustNil(t, s.RevokeKey(ctx, o.ID, k2.ID, rev.Add(time.Hour)), "revoke again")
	got, _ = s.KeyByHash(ctx, "h2")
	sameTimePtr(t, "revoked at", got.RevokedAt, &rev)
	if g3, _ := s.KeyByHash(ctx, "h3"); g3.RevokedAt != nil {
		t.Fatalf("other org's key revoked")
	}

	used := base.Add(2 * time.Hour)
	mustNil(t, s.TouchKeys(ctx, map[string]time.Time{k1.ID: used, k3.ID: used.Add(time.Second), id(): used}), "touch keys")
	got, _ = s.KeyByHash(ctx, "h1")
	sameTimePtr(t, "last used", got.LastUsedAt, &used)
	mustNil(t, s.TouchKeys(ctx, map[string]time.Time{k1.ID: used.Add(-time.Hour)}), "touch keys older")
	got, _ = s.KeyByHash(ctx, "h1")
	sameTimePtr(t, "last used never goes back", got.LastUsedAt, &used)
}

func checkKey(t *testing.T, got, want *tenancy.Key) {
	t.Helper()
	if got.ID != want.ID || got.OrgID != want.OrgID || got.CreatedBy != want.CreatedBy || got.Name != want.Name ||
		got.Prefix != want.Prefix || got.Hash != want.Hash || got.Policy != want.Policy || got.Limits != want.Limits ||
		fmt.Sprint(got.Scopes) != fmt.Sprint(want.Scopes) || fmt.Sprint(got.Tags) != fmt.Sprint(want.Tags) {
		t.Fatalf("key: got %+v, want %+v", got, want)
	}
	if (got.Alpha == nil) != (want.Alpha == nil) || (got.Alpha != nil && *got.Alpha != *want.Alpha) {
		t.Fatalf("key alpha: got %v, want %v", got.Alpha, want.Alpha)
	}
	sameTimePtr(t, "key expiry", got.ExpiresAt, want.ExpiresAt)
	sameTimePtr(t, "key revoked", got.RevokedAt, want.RevokedAt)
	sameTime(t, "key created", got.CreatedAt, want.CreatedAt)
}

func testCredentials(t *testing.T, s tenancy.Store) {
	ctx := context.Background()
	u, o := account(t, s, "alice", 0)
	_, other := account(t, s, "bob", 0)
	c := &tenancy.Credential{ID: id(), OrgID: o.ID, Provider: "openai", Label: "main", BaseURL: "https://api.example.com/v1",
		LastFour: "wxyz", Ciphertext: []byte{1, 2, 3}, DEKVersion: 1, CreatedBy: u.ID, CreatedAt: base}
	mustIs(t, s.CreateCredential(ctx, c), tenancy.ErrDataKeyChanged, "credential without data key")
	for _, org := range []string{o.ID, other.ID} {
		mustNil(t, s.CreateDataKey(ctx, &tenancy.DataKey{OrgID: org, Wrapped: []byte("w-" + org), Version: 1, CreatedAt: base, UpdatedAt: base}), "data key")
	}
	mustNil(t, s.CreateCredential(ctx, c), "create credential")
	dup := *c
	dup.ID = id()
	mustIs(t, s.CreateCredential(ctx, &dup), tenancy.ErrConflict, "second credential for provider")
	theirs := &tenancy.Credential{ID: id(), OrgID: other.ID, Provider: "openai", Label: "theirs", LastFour: "abcd",
		Ciphertext: []byte{9}, DEKVersion: 1, CreatedAt: base}
	mustNil(t, s.CreateCredential(ctx, theirs), "other org's credential")
	c2 := &tenancy.Credential{ID: id(), OrgID: o.ID, Provider: "anthropic", Label: "a", LastFour: "1234",
		Ciphertext: []byte{4}, DEKVersion: 1, CreatedAt: base.Add(time.Second)}
	mustNil(t, s.CreateCredential(ctx, c2), "second provider")

	got, err := s.CredentialByProvider(ctx, o.ID, "openai")
	mustNil(t, err, "by provider")
	if got.ID != c.ID || got.Label != "main" || got.BaseURL != c.BaseURL || got.LastFour != "wxyz" ||
		string(got.Ciphertext) != string(c.Ciphertext) || got.DEKVersion != 1 || got.CreatedBy != u.ID || got.RotatedAt != nil {
		t.Fatalf("credential: got %+v", got)
	}
	_, err = s.CredentialByProvider(ctx, o.ID, "google")
	mustIs(t, err, tenancy.ErrNotFound, "unconfigured provider")
	_, err = s.OrgCredential(ctx, o.ID, theirs.ID)
	mustIs(t, err, tenancy.ErrNotFound, "another org's credential")
	list, err := s.OrgCredentials(ctx, o.ID)
	mustNil(t, err, "list")
	if len(list) != 2 || list[0].ID != c.ID || list[1].ID != c2.ID {
		t.Fatalf("list: got %+v", list)
	}

	rot := base.Add(time.Hour)
	upd := *c
	upd.Ciphertext, upd.LastFour, upd.RotatedAt = []byte{7, 7}, "qrst", &rot
	upd.DEKVersion = 2
	mustIs(t, s.UpdateCredentialSecret(ctx, &upd), tenancy.ErrDataKeyChanged, "update under stale DEK version")
	upd.DEKVersion = 1
	mustNil(t, s.UpdateCredentialSecret(ctx, &upd), "update")
	got, _ = s.OrgCredential(ctx, o.ID, c.ID)
	if string(got.Ciphertext) != "\x07\x07" || got.LastFour != "qrst" {
		t.Fatalf("after update: got %+v", got)
	}
	sameTimePtr(t, "rotated at", got.RotatedAt, &rot)
	wrong := *theirs
	wrong.OrgID = o.ID
	mustIs(t, s.UpdateCredentialSecret(ctx, &wrong), tenancy.ErrNotFound, "update another org's credential")
	mustIs(t, s.DeleteCredential(ctx, o.ID, theirs.ID), tenancy.ErrNotFound, "delete another org's credential")
	mustNil(t, s.DeleteCredential(ctx, o.ID, c.ID), "delete")
	_, err = s.OrgCredential(ctx, o.ID, c.ID)
	mustIs(t, err, tenancy.ErrNotFound, "deleted credential")
	if _, err := s.OrgCredential(ctx, other.ID, theirs.ID); err != nil {
		t.Fatalf("other org's credential gone: %v", err)
	}
}

func testDataKeys(t *testing.T, s tenancy.Store) {
	ctx := context.Background()
	var orgs []string
	for i := range 5 {
		_, o := account(t, s, fmt.Sprintf("user%d", i), 0)
		orgs = append(orgs, o.ID)
		mustNil(t, s.CreateDataKey(ctx, &tenancy.DataKey{OrgID: o.ID, Wrapped: []byte("w1-" + o.ID), Version: 1, CreatedAt: base, UpdatedAt: base}), "create data key")
	}
	mustIs(t, s.CreateDataKey(ctx, &tenancy.DataKey{OrgID: orgs[0], Wrapped: []byte("x"), Version: 1, CreatedAt: base, UpdatedAt: base}), tenancy.ErrConflict, "duplicate data key")
	dk, err := s.DataKey(ctx, orgs[0])
	mustNil(t, err, "data key")
	if dk.OrgID != orgs[0] || string(dk.Wrapped) != "w1-"+orgs[0] || dk.Version != 1 {
		t.Fatalf("data key: got %+v", dk)
	}
	_, err = s.DataKey(ctx, id())
	mustIs(t, err, tenancy.ErrNotFound, "unknown org data key")

	var seen []string
	after := ""
	for {
		page, err := s.DataKeysAfter(ctx, after, 2)
		mustNil(t, err, "page")
		for _, p := range page {
			seen = append(seen, p.OrgID)
		}
		if len(page) < 2 {
			break
		}
		after = page[len(page)-1].OrgID
	}
	if len(seen) != 5 {
		t.Fatalf("paging saw %d data keys, want 5", len(seen))
	}
	for i := 1; i < len(seen); i++ {
		if seen[i-1] >= seen[i] {
			t.Fatalf("paging not ordered by org id: %v", seen)
		}
	}

	at := base.Add(time.Hour)
	mustIs(t, s.RewrapDataKey(ctx, orgs[0], 1, []byte("stale"), []byte("w2"), at), tenancy.ErrConflict, "rewrap with stale bytes")
	mustIs(t, s.RewrapDataKey(ctx, orgs[0], 2, []byte("w1-"+orgs[0]), []byte("w2"), at), tenancy.ErrConflict, "rewrap with stale version")
	mustNil(t, s.RewrapDataKey(ctx, orgs[0], 1, []byte("w1-"+orgs[0]), []byte("w2"), at), "rewrap")
	dk, _ = s.DataKey(ctx, orgs[0])
	if string(dk.Wrapped) != "w2" || dk.Version != 1 {
		t.Fatalf("after rewrap: got %+v", dk)
	}
	sameTime(t, "rewrap updated at", dk.UpdatedAt, at)

	// ReencryptDataKey: reseal sees every credential of the org (and no
	// other org's) and must return all of them under the next version.
	org := orgs[1]
	c1 := &tenancy.Credential{ID: id(), OrgID: org, Provider: "openai", Label: "o", LastFour: "1111", Ciphertext: []byte("old1"), DEKVersion: 1, CreatedAt: base}
	c2 := &tenancy.Credential{ID: id(), OrgID: org, Provider: "google", Label: "g", LastFour: "2222", Ciphertext: []byte("old2"), DEKVersion: 1, CreatedAt: base.Add(time.Second)}
	mustNil(t, s.CreateCredential(ctx, c1), "cred 1")
	mustNil(t, s.CreateCredential(ctx, c2), "cred 2")
	mustNil(t, s.CreateCredential(ctx, &tenancy.Credential{ID: id(), OrgID: orgs[2], Provider: "openai", Label: "x", LastFour: "9999",
		Ciphertext: []byte("other"), DEKVersion: 1, CreatedAt: base}), "other org's cred")
	fresh := &tenancy.DataKey{OrgID: org, Wrapped: []byte("fresh"), Version: 2, CreatedAt: at, UpdatedAt: at}
	reseal := func(drop int, version int64, fail error) tenancy.Reseal {
		return func(creds []tenancy.Credential) (*tenancy.DataKey, []tenancy.Credential, error) {
			if len(creds) != 2 || creds[0].ID != c1.ID || creds[1].ID != c2.ID || string(creds[0].Ciphertext) != "old1" {
				t.Fatalf("reseal got %+v", creds)
			}
			if fail != nil {
				return nil, nil, fail
			}
			out := make([]tenancy.Credential, 0, 2)
			for i, c := range creds {
				if i == drop {
					continue
				}
				c.Ciphertext, c.DEKVersion = []byte("new-"+c.Provider), version
				out = append(out, c)
			}
			return fresh, out, nil
		}
	}
	unchanged := func(what string) {
		t.Helper()
		if got, _ := s.OrgCredential(ctx, org, c1.ID); string(got.Ciphertext) != "old1" || got.DEKVersion != 1 {
			t.Fatalf("%s changed a credential: %+v", what, got)
		}
		if got, _ := s.DataKey(ctx, org); got.Version != 1 || string(got.Wrapped) != "w1-"+org {
			t.Fatalf("%s changed the data key: %+v", what, got)
		}
	}
	mustIs(t, s.ReencryptDataKey(ctx, org, 1, reseal(1, 2, nil)), tenancy.ErrConflict, "reseal dropping a credential")
	unchanged("a dropped credential")
	mustIs(t, s.ReencryptDataKey(ctx, org, 1, reseal(-1, 3, nil)), tenancy.ErrConflict, "reseal under the wrong version")
	unchanged("a wrong version")
	boom := fmt.Errorf("boom")
	if err := s.ReencryptDataKey(ctx, org, 1, reseal(-1, 2, boom)); !errors.Is(err, boom) {
		t.Fatalf("reseal error: got %v", err)
	}
	unchanged("a failed reseal")
	mustIs(t, s.ReencryptDataKey(ctx, org, 2, func([]tenancy.Credential) (*tenancy.DataKey, []tenancy.Credential, error) {
		t.Fatal("reseal called with a stale version")
		return nil, nil, nil
	}), tenancy.ErrConflict, "stale version")
	mustNil(t, s.ReencryptDataKey(ctx, org, 1, reseal(-1, 2, nil)), "re-encrypt")
	got, _ := s.DataKey(ctx, org)
	if got.Version != 2 || string(got.Wrapped) != "fresh" {
		t.Fatalf("after re-encrypt: data key %+v", got)
	}
	for _, c := range []*tenancy.Credential{c1, c2} {
		g, _ := s.OrgCredential(ctx, org, c.ID)
		if string(g.Ciphertext) != "new-"+c.Provider || g.DEKVersion != 2 || g.LastFour != c.LastFour {
			t.Fatalf("after re-encrypt: credential %+v", g)
		}
	}
	// A credential written under the replaced version is refused.
	late := &tenancy.Credential{ID: id(), OrgID: org, Provider: "deepseek", Label: "d", LastFour: "3333", Ciphertext: []byte("x"), DEKVersion: 1, CreatedAt: base}
	mustIs(t, s.CreateCredential(ctx, late), tenancy.ErrDataKeyChanged, "credential sealed under replaced DEK")
}

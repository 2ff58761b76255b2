package tenancytest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heddle-gw/heddle/tenancy"
)

// StoreSuite runs the tenancy.Store contract against stores made by
// newStore (each call must return an empty store).
func StoreSuite(t *testing.T, newStore func(t *testing.T) tenancy.Store) {
	t.Run("accounts", func(t *testing.T) { testAccounts(t, newStore(t)) })
	t.Run("memberships", func(t *testing.T) { testMemberships(t, newStore(t)) })
	t.Run("invitations", func(t *testing.T) { testInvitations(t, newStore(t)) })
	t.Run("sessions", func(t *testing.T) { testSessions(t, newStore(t)) })
	t.Run("keys", func(t *testing.T) { testKeys(t, newStore(t)) })
	t.Run("credentials", func(t *testing.T) { testCredentials(t, newStore(t)) })
	t.Run("data keys", func(t *testing.T) { testDataKeys(t, newStore(t)) })
}

// base is a fixed instant at microsecond precision (what Postgres keeps).
var base = time.Date(2026, 11, 29, 10, 0, 0, 123456000, time.UTC)

func id() string { return uuid.Must(uuid.NewV7()).String() }

func mustNil(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func mustIs(t *testing.T, err, want error, what string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got %v, want %v", what, err, want)
	}
}

func sameTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if !got.Equal(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

func sameTimePtr(t *testing.T, what string, got, want *time.Time) {
	t.Helper()
	if (got == nil) != (want == nil) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
	if got != nil {
		sameTime(t, what, *got, *want)
	}
}

// account creates a user with an org they own, created at base+offset.
func account(t *testing.T, s tenancy.Store, name string, offset time.Duration) (*tenancy.User, *tenancy.Org) {
	t.Helper()
	at := base.Add(offset)
	u := &tenancy.User{ID: id(), Email: name + "@example.com", PasswordHash: "$argon2id$" + name, CreatedAt: at}
	o := &tenancy.Org{ID: id(), Name: "Org " + name, Slug: "org-" + name, CreatedAt: at}
	mustNil(t, s.CreateAccount(context.Background(), u, o, &tenancy.Membership{OrgID: o.ID, UserID: u.ID, Role: tenancy.RoleOwner, CreatedAt: at}), "create account "+name)
	return u, o
}

func testAccounts(t *testing.T, s tenancy.Store) {
	ctx := context.Background()
	u, o := account(t, s, "alice", 0)

	gotU, err := s.UserByID(ctx, u.ID)
	mustNil(t, err, "user by id")
	if gotU.ID != u.ID || gotU.Email != u.Email || gotU.PasswordHash != u.PasswordHash {
		t.Fatalf("user by id: got %+v, want %+v", gotU, u)
	}
	sameTime(t, "user created", gotU.CreatedAt, u.CreatedAt)
	gotU, err = s.UserByEmail(ctx, "alice@example.com")
	mustNil(t, err, "user by email")
	if gotU.ID != u.ID {
		t.Fatalf("user by email: got %s, want %s", gotU.ID, u.ID)
	}
	gotO, err := s.OrgByID(ctx, o.ID)
	mustNil(t, err, "org by id")
	if gotO.ID != o.ID || gotO.Name != o.Name || gotO.Slug != o.Slug || !gotO.CreatedAt.Equal(o.CreatedAt) {
		t.Fatalf("org by id: got %+v, want %+v", gotO, o)
	}
	gotO, err = s.OrgBySlug(ctx, "org-alice")
	mustNil(t, err, "org by slug")
	if gotO.ID != o.ID {
		t.Fatalf("org by slug: got %s", gotO.ID)
	}

	for _, c := range []struct {
		name string
		err  error
	}{
		{"user by id", func() error { _, err := s.UserByID(ctx, id()); return err }()},
		{"user by email", func() error { _, err := s.UserByEmail(ctx, "nobody@example.com"); return err }()},
		{"org by id", func() error { _, err := s.OrgByID(ctx, id()); return err }()},
		{"org by id (slug given)", func() error { _, err := s.OrgByID(ctx, "org-alice"); return err }()},
		{"org by slug", func() error { _, err := s.OrgBySlug(ctx, "nope"); return err }()},
	} {
		mustIs(t, c.err, tenancy.ErrNotFound, c.name)
	}

	// Duplicate email: ErrEmailTaken, and nothing of the failed account stays.
	u2 := &tenancy.User{ID: id(), Email: "alice@example.com", PasswordHash: "x", CreatedAt: base}
	o2 := &tenancy.Org{ID: id(), Name: "Other", Slug: "other", CreatedAt: base}
	err = s.CreateAccount(ctx, u2, o2, &tenancy.Membership{OrgID: o2.ID, UserID: u2.ID, Role: tenancy.RoleOwner, CreatedAt: base})
	mustIs(t, err, tenancy.ErrEmailTaken, "duplicate email")
	_, err = s.OrgBySlug(ctx, "other")
	mustIs(t, err, tenancy.ErrNotFound, "org of failed sign-up")

	// Duplicate slug: ErrConflict, not ErrEmailTaken.
	u3 := &tenancy.User{ID: id(), Email: "bob@example.com", PasswordHash: "x", CreatedAt: base}
	o3 := &tenancy.Org{ID: id(), Name: "Dup", Slug: "org-alice", CreatedAt: base}
	err = s.CreateAccount(ctx, u3, o3, &tenancy.Membership{OrgID: o3.ID, UserID: u3.ID, Role: tenancy.RoleOwner, CreatedAt: base})
	mustIs(t, err, tenancy.ErrConflict, "duplicate slug")
	if errors.Is(err, tenancy.ErrEmailTaken) {
		t.Fatalf("duplicate slug reported as email taken")
	}
	_, err = s.UserByEmail(ctx, "bob@example.com")
	mustIs(t, err, tenancy.ErrNotFound, "user of failed sign-up")

	// A second org for alice; UserOrgs lists both, oldest first.
	o4 := &tenancy.Org{ID: id(), Name: "Second", Slug: "second", CreatedAt: base.Add(time.Minute)}
	mustNil(t, s.CreateOrg(ctx, o4, &tenancy.Membership{OrgID: o4.ID, UserID: u.ID, Role: tenancy.RoleOwner, CreatedAt: o4.CreatedAt}), "create org")
	mustIs(t, s.CreateOrg(ctx, &tenancy.Org{ID: id(), Name: "x", Slug: "second", CreatedAt: base},
		&tenancy.Membership{UserID: u.ID, Role: tenancy.RoleOwner, CreatedAt: base}), tenancy.ErrConflict, "create org duplicate slug")
	orgs, err := s.UserOrgs(ctx, u.ID)
	mustNil(t, err, "user orgs")
	if len(orgs) != 2 || orgs[0].Org.ID != o.ID || orgs[1].Org.ID != o4.ID || orgs[1].Org.Slug != "second" ||
		orgs[0].Role != tenancy.RoleOwner || orgs[1].Role != tenancy.RoleOwner {
		t.Fatalf("user orgs: got %+v", orgs)
	}
}

func testMemberships(t *testing.T, s tenancy.Store) {
	ctx := context.Background()
	alice, org := account(t, s, "alice", 0)
	bob, _ := account(t, s, "bob", time.Second)
	carol, _ := account(t, s, "carol", 2*time.Second)

	inv := func(u *tenancy.User, role tenancy.Role, off time.Duration) {
		t.Helper()
		i := &tenancy.Invitation{ID: id(), OrgID: org.ID, Email: u.Email, Role: role, TokenHash: id(), InvitedBy: alice.ID, CreatedAt: base, ExpiresAt: base.Add(time.Hour)}
		mustNil(t, s.CreateInvitation(ctx, i), "invite")
		mustNil(t, s.AcceptInvitation(ctx, i.ID, nil, &tenancy.Membership{OrgID: org.ID, UserID: u.ID, Role: role, CreatedAt: base.Add(off)}, base), "accept")
	}
	inv(bob, tenancy.RoleAdmin, time.Minute)
	inv(carol, tenancy.RoleViewer, 2*time.Minute)

	m, err := s.Membership(ctx, org.ID, bob.ID)
	mustNil(t, err, "membership")
	if m.Role != tenancy.RoleAdmin || m.OrgID != org.ID || m.UserID != bob.ID {
		t.Fatalf("membership: got %+v", m)
	}
	_, err = s.Membership(ctx, id(), bob.ID)
	mustIs(t, err, tenancy.ErrNotFound, "membership in unknown org")

	members, err := s.OrgMembers(ctx, org.ID)
	mustNil(t, err, "org members")
	want := []struct {
		id, email string
		role      tenancy.Role
	}{{alice.ID, alice.Email, tenancy.RoleOwner}, {bob.ID, bob.Email, tenancy.RoleAdmin}, {carol.ID, carol.Email, tenancy.RoleViewer}}
	if len(members) != len(want) {
		t.Fatalf("org members: got %d, want %d", len(members), len(want))
	}
	for i, w := range want {
		if members[i].UserID != w.id || members[i].Email != w.email || members[i].Role != w.role || members[i].OrgID != org.ID {
			t.Fatalf("member %d: got %+v, want %+v", i, members[i], w)
		}
	}

	mustIs(t, s.SetRole(ctx, org.ID, alice.ID, tenancy.RoleAdmin), tenancy.ErrLastOwner, "demote last owner")
	mustIs(t, s.DeleteMembership(ctx, org.ID, alice.ID), tenancy.ErrLastOwner, "remove last owner")
	mustIs(t, s.SetRole(ctx, org.ID, id(), tenancy.RoleAdmin), tenancy.ErrNotFound, "set role of non-member")
	mustIs(t, s.DeleteMembership(ctx, org.ID, id()), tenancy.ErrNotFound, "remove non-member")

	mustNil(t, s.SetRole(ctx, org.ID, bob.ID, tenancy.RoleOwner), "promote bob")
	mustNil(t, s.SetRole(ctx, org.ID, alice.ID, tenancy.RoleMember), "demote alice with another owner")
	m, _ = s.Membership(ctx, org.ID, alice.ID)
	if m.Role != tenancy.RoleMember {
		t.Fatalf("alice role: got %s", m.Role)
	}
	mustNil(t, s.DeleteMembership(ctx, org.ID, carol.ID), "remove carol")
	_, err = s.Membership(ctx, org.ID, carol.ID)
	mustIs(t, err, tenancy.ErrNotFound, "carol after removal")
	mustIs(t, s.DeleteMembership(ctx, org.ID, bob.ID), tenancy.ErrLastOwner, "remove bob, now last owner")
}

func testInvitations(t *testing.T, s tenancy.Store) {
	ctx := context.Background()
	alice, org := account(t, s, "alice", 0)
	bob, _ := account(t, s, "bob", 0)

	i1 := &tenancy.Invitation{ID: id(), OrgID: org.ID, Email: "new@example.com", Role: tenancy.RoleMember, TokenHash: "hash-1",
		InvitedBy: alice.ID, CreatedAt: base, ExpiresAt: base.Add(time.Hour)}
	i2 := &tenancy.Invitation{ID: id(), OrgID: org.ID, Email: bob.Email, Role: tenancy.RoleViewer, TokenHash: "hash-2",
		InvitedBy: alice.ID, CreatedAt: base.Add(time.Second), ExpiresAt: base.Add(time.Hour)}
	mustNil(t, s.CreateInvitation(ctx, i1), "invite 1")
	mustNil(t, s.CreateInvitation(ctx, i2), "invite 2")
	mustIs(t, s.CreateInvitation(ctx, &tenancy.Invitation{ID: id(), OrgID: org.ID, Email: "x@example.com", Role: tenancy.RoleMember,
		TokenHash: "hash-1", InvitedBy: alice.ID, CreatedAt: base, ExpiresAt: base}), tenancy.ErrConflict, "duplicate token hash")

	got, err := s.InvitationByTokenHash(ctx, "hash-1")
	mustNil(t, err, "invitation by hash")
	if got.ID != i1.ID || got.OrgID != org.ID || got.Email != i1.Email || got.Role != i1.Role || got.InvitedBy != alice.ID || got.AcceptedAt != nil {
		t.Fatalf("invitation: got %+v", got)
	}
	sameTime(t, "invitation expiry", got.ExpiresAt, i1.ExpiresAt)
	_, err = s.InvitationByTokenHash(ctx, "nope")
	mustIs(t, err, tenancy.ErrNotFound, "unknown invitation")

	// A new user whose email is taken: nothing changes.
	taken := &tenancy.User{ID: id(), Email: bob.Email, PasswordHash: "x", CreatedAt: base}
	err = s.AcceptInvitation(ctx, i1.ID, taken, &tenancy.Membership{OrgID: org.ID, UserID: taken.ID, Role: tenancy.RoleMember, CreatedAt: base}, base)
	mustIs(t, err, tenancy.ErrEmailTaken, "accept with taken email")
	got, _ = s.InvitationByTokenHash(ctx, "hash-1")
	if got.AcceptedAt != nil {
		t.Fatalf("failed acceptance marked the invitation accepted")
	}

	nu := &tenancy.User{ID: id(), Email: "new@example.com", PasswordHash: "h", CreatedAt: base}
	at := base.Add(time.Minute)
	mustNil(t, s.AcceptInvitation(ctx, i1.ID, nu, &tenancy.Membership{OrgID: org.ID, UserID: nu.ID, Role: tenancy.RoleMember, CreatedAt: at}, at), "accept new user")
	if u, err := s.UserByEmail(ctx, "new@example.com"); err != nil || u.ID != nu.ID {
		t.Fatalf("new user: %v %+v", err, u)
	}
	if m, err := s.Membership(ctx, org.ID, nu.ID); err != nil || m.Role != tenancy.RoleMember {
		t.Fatalf("new member: %v %+v", err, m)
	}
	got, _ = s.InvitationByTokenHash(ctx, "hash-1")
	sameTimePtr(t, "accepted at", got.AcceptedAt, &at)
	mustIs(t, s.AcceptInvitation(ctx, i1.ID, nil, &tenancy.Membership{OrgID: org.ID, UserID: nu.ID, Role: tenancy.RoleAdmin, CreatedAt: at}, at),
		tenancy.ErrInvitationInvalid, "accept twice")

	pending, err := s.OrgInvitations(ctx, org.ID)
	mustNil(t, err, "pending invitations")
	if len(pending) != 1 || pending[0].ID != i2.ID {
		t.Fatalf("pending: got %+v", pending)
	}
	// An existing member accepting: the role is updated, not duplicated.
	mustNil(t, s.AcceptInvitation(ctx, i2.ID, nil, &tenancy.Membership{OrgID: org.ID, UserID: bob.ID, Role: tenancy.RoleViewer, CreatedAt: at}, at), "accept existing user")
	if m, err := s.Membership(ctx, org.ID, bob.ID); err != nil || m.Role != tenancy.RoleViewer {
		t.Fatalf("bob membership: %v %+v", err, m)
	}
	mem, _ := s.OrgMembers(ctx, org.ID)
	if len(mem) != 3 {
		t.Fatalf("members after acceptances: got %d, want 3", len(mem))
	}
}

func testSessions(t *testing.T, s tenancy.Store) {
	ctx := context.Background()
	u, o := account(t, s, "alice", 0)
	_, o2 := account(t, s, "bob", 0)
	sess := &tenancy.Session{ID: id(), UserID: u.ID, OrgID: o.ID, RefreshHash: "r1", CreatedAt: base, RefreshedAt: base, ExpiresAt: base.Add(time.Hour)}
	mustNil(t, s.CreateSession(ctx, sess), "create session")
	mustIs(t, s.CreateSession(ctx, sess), tenancy.ErrConflict, "duplicate session")
	got, err := s.SessionByID(ctx, sess.ID)
	mustNil(t, err, "session by id")
	if got.UserID != u.ID || got.OrgID != o.ID || got.RefreshHash != "r1" || got.RevokedAt != nil {
		t.Fatalf("session: got %+v", got)
	}
	sameTime(t, "session expiry", got.ExpiresAt, sess.ExpiresAt)
	sameTime(t, "session refreshed", got.RefreshedAt, base)

	mustIs(t, s.RotateRefresh(ctx, sess.ID, "wrong", "r2", base), tenancy.ErrConflict, "rotate with stale hash")
	at := base.Add(time.Minute)
	mustNil(t, s.RotateRefresh(ctx, sess.ID, "r1", "r2", at), "rotate refresh")
	mustIs(t, s.RotateRefresh(ctx, sess.ID, "r1", "r3", at), tenancy.ErrConflict, "rotate with old hash again")
	mustIs(t, s.RotateRefresh(ctx, id(), "r1", "r3", at), tenancy.ErrNotFound, "rotate unknown session")
	mustNil(t, s.SetSessionOrg(ctx, sess.ID, o2.ID), "switch org")
	mustIs(t, s.SetSessionOrg(ctx, id(), o2.ID), tenancy.ErrNotFound, "switch org of unknown session")
	rev := base.Add(2 * time.Minute)
	mustNil(t, s.RevokeSession(ctx, sess.ID, rev), "revoke")
	mustNil(t, s.RevokeSession(ctx, sess.ID, rev.Add(time.Hour)), "revoke again")
	mustIs(t, s.RevokeSession(ctx, id(), rev), tenancy.ErrNotFound, "revoke unknown session")
	got, _ = s.SessionByID(ctx, sess.ID)
	if got.RefreshHash != "r2" || got.OrgID != o2.ID {
		t.Fatalf("session after updates: got %+v", got)
	}
	sameTime(t, "refreshed at", got.RefreshedAt, at)
	sameTimePtr(t, "revoked at (first revocation kept)", got.RevokedAt, &rev)
}

func testKeys(t *testing.T, s tenancy.Store) {
	ctx := context.Background()
	u, o := account(t, s, "alice", 0)
	_, other := account(t, s, "bob", 0)
	alpha := 0.25
	exp := base.Add(24 * time.Hour)
	k1 := &tenancy.Key{ID: id(), OrgID: o.ID, CreatedBy: u.ID, Name: "ci", Prefix: "rk_abcdefgh", Hash: "h1",
		Scopes: []tenancy.Scope{tenancy.ScopeInference, tenancy.ScopeAnalyticsRead}, Policy: tenancy.PolicyRouteAll,
		Alpha: &alpha, Limits: tenancy.Limits{RPM: 60, TPM: 100000, DailyBudgetMicros: 5_000_000, MonthlyBudgetMicros: 90_000_000},
		ExpiresAt: &exp, CreatedAt: base}
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
	upd.Limits, upd.ExpiresAt = tenancy.Limits{RPM: 1}, nil
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
		fmt.Sprint(got.Scopes) != fmt.Sprint(want.Scopes) {
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

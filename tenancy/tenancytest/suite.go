package tenancytest

import (
	"context"
	"errors"
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
	carol, carolOrg := account(t, s, "carol", 2*time.Second)

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
	mustIs(t, s.DeleteMembership(ctx, org.ID, alice.ID, base, tenancy.KeysRevoke), tenancy.ErrLastOwner, "remove last owner")
	mustIs(t, s.SetRole(ctx, org.ID, id(), tenancy.RoleAdmin), tenancy.ErrNotFound, "set role of non-member")
	mustIs(t, s.DeleteMembership(ctx, org.ID, id(), base, tenancy.KeysRevoke), tenancy.ErrNotFound, "remove non-member")

	mustNil(t, s.SetRole(ctx, org.ID, bob.ID, tenancy.RoleOwner), "promote bob")
	mustNil(t, s.SetRole(ctx, org.ID, alice.ID, tenancy.RoleMember), "demote alice with another owner")
	m, _ = s.Membership(ctx, org.ID, alice.ID)
	if m.Role != tenancy.RoleMember {
		t.Fatalf("alice role: got %s", m.Role)
	}
	// Removing carol revokes the keys she created in org, and only those.
	earlier := base.Add(time.Minute)
	key := func(o *tenancy.Org, by string, revoked *time.Time) *tenancy.Key {
		t.Helper()
		k := &tenancy.Key{ID: id(), OrgID: o.ID, CreatedBy: by, Name: "k", Prefix: "rk_" + id()[:8], Hash: id(),
			Scopes: []tenancy.Scope{tenancy.ScopeInference}, Policy: tenancy.PolicyExplicit, CreatedAt: base}
		mustNil(t, s.CreateKey(ctx, k), "create key")
		if revoked != nil {
			mustNil(t, s.RevokeKey(ctx, o.ID, k.ID, *revoked), "revoke key")
		}
		return k
	}
	carols, carolsRevoked := key(org, carol.ID, nil), key(org, carol.ID, &earlier)
	bobs, carolsElsewhere := key(org, bob.ID, nil), key(carolOrg, carol.ID, nil)
	removedAt := base.Add(time.Hour)
	mustNil(t, s.DeleteMembership(ctx, org.ID, carol.ID, removedAt, tenancy.KeysRevoke), "remove carol")
	_, err = s.Membership(ctx, org.ID, carol.ID)
	mustIs(t, err, tenancy.ErrNotFound, "carol after removal")
	for _, c := range []struct {
		k    *tenancy.Key
		want *time.Time
	}{{carols, &removedAt}, {carolsRevoked, &earlier}, {bobs, nil}, {carolsElsewhere, nil}} {
		got, err := s.OrgKey(ctx, c.k.OrgID, c.k.ID)
		mustNil(t, err, "key after removal")
		if (got.RevokedAt == nil) != (c.want == nil) || (c.want != nil && !got.RevokedAt.Equal(*c.want)) {
			t.Fatalf("key of %s in %s: revoked_at %v, want %v", c.k.CreatedBy, c.k.OrgID, got.RevokedAt, c.want)
		}
	}
	mustIs(t, s.DeleteMembership(ctx, org.ID, bob.ID, base, tenancy.KeysRevoke), tenancy.ErrLastOwner, "remove bob, now last owner")
	// A refused removal revokes nothing.
	if got, err := s.OrgKey(ctx, org.ID, bobs.ID); err != nil || got.RevokedAt != nil {
		t.Fatalf("bob's key after a refused removal: %+v %v", got, err)
	}

	// An organisation that suspends: the removed member's live keys are
	// suspended, not revoked, and an admin can reinstate one.
	if o, err := s.OrgByID(ctx, carolOrg.ID); err != nil || o.RemovedMemberKeys != tenancy.KeysRevoke {
		t.Fatalf("new organisation's removed-member keys: %+v %v, want revoke", o, err)
	}
	mustNil(t, s.SetRemovedMemberKeys(ctx, org.ID, tenancy.KeysSuspend), "set suspend")
	mustIs(t, s.SetRemovedMemberKeys(ctx, id(), tenancy.KeysSuspend), tenancy.ErrNotFound, "set on an unknown org")
	if o, err := s.OrgByID(ctx, org.ID); err != nil || o.RemovedMemberKeys != tenancy.KeysSuspend {
		t.Fatalf("org after set: %+v %v, want suspend", o, err)
	}
	dave, _ := account(t, s, "dave", 3*time.Second)
	inv(dave, tenancy.RoleMember, 3*time.Minute)
	daves, davesRevoked := key(org, dave.ID, nil), key(org, dave.ID, &earlier)
	suspendedAt := base.Add(2 * time.Hour)
	mustNil(t, s.DeleteMembership(ctx, org.ID, dave.ID, suspendedAt, tenancy.KeysSuspend), "remove dave")
	got, err := s.OrgKey(ctx, org.ID, daves.ID)
	if err != nil || got.RevokedAt != nil || got.SuspendedAt == nil || !got.SuspendedAt.Equal(suspendedAt) {
		t.Fatalf("dave's key after removal: %+v %v; want suspended at %v", got, err, suspendedAt)
	}
	if byHash, err := s.KeyByHash(ctx, daves.Hash); err != nil || byHash.SuspendedAt == nil {
		t.Fatalf("dave's key by hash: %+v %v; want suspended", byHash, err)
	}
	if got, _ := s.OrgKey(ctx, org.ID, davesRevoked.ID); got.SuspendedAt != nil || got.RevokedAt == nil {
		t.Fatalf("dave's revoked key was suspended: %+v", got)
	}
	mustIs(t, s.ReinstateKey(ctx, carolOrg.ID, daves.ID), tenancy.ErrNotFound, "reinstate from another org")
	mustNil(t, s.ReinstateKey(ctx, org.ID, daves.ID), "reinstate")
	if got, _ := s.OrgKey(ctx, org.ID, daves.ID); got.SuspendedAt != nil || got.RevokedAt != nil {
		t.Fatalf("dave's key after reinstating: %+v", got)
	}
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

	// Cancelling: only the org's own pending invitations; a cancelled token
	// is gone.
	_, other := account(t, s, "carol", 0)
	i3 := &tenancy.Invitation{ID: id(), OrgID: org.ID, Email: "later@example.com", Role: tenancy.RoleMember, TokenHash: "hash-3",
		InvitedBy: alice.ID, CreatedAt: base, ExpiresAt: base.Add(time.Hour)}
	mustNil(t, s.CreateInvitation(ctx, i3), "invite 3")
	mustIs(t, s.DeleteInvitation(ctx, other.ID, i3.ID), tenancy.ErrNotFound, "cancel another org's invitation")
	mustIs(t, s.DeleteInvitation(ctx, org.ID, i2.ID), tenancy.ErrNotFound, "cancel an accepted invitation")
	mustNil(t, s.DeleteInvitation(ctx, org.ID, i3.ID), "cancel")
	mustIs(t, s.DeleteInvitation(ctx, org.ID, i3.ID), tenancy.ErrNotFound, "cancel twice")
	_, err = s.InvitationByTokenHash(ctx, "hash-3")
	mustIs(t, err, tenancy.ErrNotFound, "a cancelled token")
	if pending, _ := s.OrgInvitations(ctx, org.ID); len(pending) != 0 {
		t.Fatalf("pending after cancelling: %+v", pending)
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

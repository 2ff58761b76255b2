package tenancy_test

import (
	"context"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenancy/tenancytest"
)

func TestSignup(t *testing.T) {
	ctx := context.Background()
	store := tenancytest.NewMemory()
	a := tenancy.NewAccounts(store, tenancy.AccountsConfig{Hasher: fastHasher()})
	u, o, err := a.Signup(ctx, tenancy.SignupInput{Email: " Alice@Example.COM ", Password: "correct horse battery", OrgName: "Acme, Inc."})
	noErr(t, err)
	if u.Email != "alice@example.com" || o.Name != "Acme, Inc." || o.Slug != "acme-inc" || strings.Contains(u.PasswordHash, "correct horse") {
		t.Fatalf("signup: %+v %+v", u, o)
	}
	m, err := store.Membership(ctx, o.ID, u.ID)
	noErr(t, err)
	if m.Role != tenancy.RoleOwner {
		t.Fatalf("first member role %s", m.Role)
	}
	_, o2, err := a.Signup(ctx, tenancy.SignupInput{Email: "bob@example.com", Password: "correct horse battery", OrgName: "ACME inc"})
	noErr(t, err)
	if o2.Slug == o.Slug || !strings.HasPrefix(o2.Slug, "acme-inc-") {
		t.Fatalf("colliding slug %q", o2.Slug)
	}
	_, o3, err := a.Signup(ctx, tenancy.SignupInput{Email: "carol@example.com", Password: "correct horse battery"})
	noErr(t, err)
	if o3.Name != "carol" || o3.Slug != "carol" {
		t.Fatalf("default org %+v", o3)
	}
	_, _, err = a.Signup(ctx, tenancy.SignupInput{Email: "ALICE@example.com", Password: "correct horse battery"})
	wantErr(t, err, tenancy.ErrEmailTaken)

	for _, c := range []struct {
		name  string
		in    tenancy.SignupInput
		field string
	}{
		{"no email", tenancy.SignupInput{Password: "correct horse battery"}, "email"},
		{"bad email", tenancy.SignupInput{Email: "not-an-email", Password: "correct horse battery"}, "email"},
		{"display name", tenancy.SignupInput{Email: "Alice <a@example.com>", Password: "correct horse battery"}, "email"},
		{"short password", tenancy.SignupInput{Email: "d@example.com", Password: "short"}, "password"},
		{"long password", tenancy.SignupInput{Email: "d@example.com", Password: strings.Repeat("p", 257)}, "password"},
		{"control char org", tenancy.SignupInput{Email: "d@example.com", Password: "correct horse battery", OrgName: "a\x00b"}, "org_name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := a.Signup(ctx, c.in)
			var ve *tenancy.ValidationError
			if !asValidation(err, &ve) || ve.Field != c.field {
				t.Fatalf("got %v, want validation error on %s", err, c.field)
			}
		})
	}
}

func TestLogin(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	u, err := w.accounts.Login(ctx, "ALICE@a.example", "correct horse battery")
	noErr(t, err)
	if u.ID != w.ownerA.UserID {
		t.Fatalf("logged in as %s", u.ID)
	}
	for _, c := range []struct{ name, email, pw string }{
		{"wrong password", "alice@a.example", "correct horse batterx"},
		{"unknown email", "nobody@a.example", "correct horse battery"},
		{"empty", "", ""},
		{"huge password", "alice@a.example", strings.Repeat("x", 10000)},
	} {
		t.Run(c.name, func(t *testing.T) {
			u, err := w.accounts.Login(ctx, c.email, c.pw)
			wantErr(t, err, tenancy.ErrInvalidLogin)
			if u != nil {
				t.Fatal("user returned with error")
			}
		})
	}
}

func TestActorAndOrgs(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	a, err := w.accounts.Actor(ctx, w.ownerA.UserID, w.orgA.ID)
	noErr(t, err)
	if a != w.ownerA {
		t.Fatalf("actor %+v", a)
	}
	_, err = w.accounts.Actor(ctx, w.ownerA.UserID, w.orgB.ID)
	wantErr(t, err, tenancy.ErrNotFound)
	o, err := w.accounts.CreateOrg(ctx, w.ownerA.UserID, "Second")
	noErr(t, err)
	orgs, err := w.accounts.Orgs(ctx, w.ownerA.UserID)
	noErr(t, err)
	if len(orgs) != 2 || orgs[0].Org.ID != w.orgA.ID || orgs[1].Org.ID != o.ID || orgs[1].Role != tenancy.RoleOwner {
		t.Fatalf("orgs %+v", orgs)
	}
	_, err = w.accounts.CreateOrg(ctx, w.ownerA.UserID, " ")
	wantErr(t, err, tenancy.ErrInvalidInput)
}

func TestInvitations(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	admin := w.join(t, "admin@a.example", tenancy.RoleAdmin)
	viewer := w.join(t, "viewer@a.example", tenancy.RoleViewer)

	_, _, err := w.members.Invite(ctx, viewer, "x@a.example", tenancy.RoleMember)
	wantErr(t, err, tenancy.ErrForbidden)
	_, _, err = w.members.Invite(ctx, admin, "x@a.example", tenancy.RoleOwner)
	wantErr(t, err, tenancy.ErrForbidden)
	_, _, err = w.members.Invite(ctx, admin, "viewer@a.example", tenancy.RoleMember)
	wantErr(t, err, tenancy.ErrConflict)
	_, _, err = w.members.Invite(ctx, admin, "x@a.example", "root")
	wantErr(t, err, tenancy.ErrInvalidInput)

	inv, token, err := w.members.Invite(ctx, admin, "New@A.example", tenancy.RoleMember)
	noErr(t, err)
	if inv.Email != "new@a.example" || inv.TokenHash == token || strings.Contains(inv.TokenHash, token) || !strings.HasPrefix(token, "inv_") {
		t.Fatalf("invitation %+v", inv)
	}
	pending, err := w.members.Invitations(ctx, admin)
	noErr(t, err)
	if len(pending) != 1 || pending[0].ID != inv.ID {
		t.Fatalf("pending %+v", pending)
	}
	_, _, err = w.members.Accept(ctx, "inv_wrong", tenancy.AcceptInput{Password: "a good password"})
	wantErr(t, err, tenancy.ErrInvitationInvalid)
	_, _, err = w.members.Accept(ctx, token, tenancy.AcceptInput{Password: "short"})
	wantErr(t, err, tenancy.ErrInvalidInput)
	// A logged-in user with another email cannot take it.
	_, _, err = w.members.Accept(ctx, token, tenancy.AcceptInput{UserID: w.ownerB.UserID})
	wantErr(t, err, tenancy.ErrForbidden)

	u, m, err := w.members.Accept(ctx, token, tenancy.AcceptInput{Password: "a good password"})
	noErr(t, err)
	if u.Email != "new@a.example" || m.Role != tenancy.RoleMember || m.OrgID != w.orgA.ID {
		t.Fatalf("accepted %+v %+v", u, m)
	}
	if _, err := w.accounts.Login(ctx, "new@a.example", "a good password"); err != nil {
		t.Fatalf("new member cannot log in: %v", err)
	}
	_, _, err = w.members.Accept(ctx, token, tenancy.AcceptInput{Password: "a good password"})
	wantErr(t, err, tenancy.ErrInvitationInvalid)

	// Existing account (bob of org B) accepts with his password, or while logged in.
	_, tok2, err := w.members.Invite(ctx, w.ownerA, "bob@b.example", tenancy.RoleViewer)
	noErr(t, err)
	_, _, err = w.members.Accept(ctx, tok2, tenancy.AcceptInput{Password: "not bob's password"})
	wantErr(t, err, tenancy.ErrInvalidLogin)
	_, m2, err := w.members.Accept(ctx, tok2, tenancy.AcceptInput{UserID: w.ownerB.UserID})
	noErr(t, err)
	if m2.UserID != w.ownerB.UserID || m2.Role != tenancy.RoleViewer {
		t.Fatalf("bob's membership %+v", m2)
	}

	// Expiry.
	_, tok3, err := w.members.Invite(ctx, w.ownerA, "late@a.example", tenancy.RoleMember)
	noErr(t, err)
	w.clock.Advance(tenancy.DefaultInvitationTTL)
	_, _, err = w.members.Accept(ctx, tok3, tenancy.AcceptInput{Password: "a good password"})
	wantErr(t, err, tenancy.ErrInvitationInvalid)
}

func TestMemberRoles(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	admin := w.join(t, "admin@a.example", tenancy.RoleAdmin)
	member := w.join(t, "member@a.example", tenancy.RoleMember)
	other := w.join(t, "other@a.example", tenancy.RoleViewer)

	for _, c := range []struct {
		name   string
		actor  tenancy.Actor
		target string
		role   tenancy.Role
		want   error
	}{
		{"member cannot re-role", member, other.UserID, tenancy.RoleAdmin, tenancy.ErrForbidden},
		{"admin cannot make owners", admin, other.UserID, tenancy.RoleOwner, tenancy.ErrForbidden},
		{"admin cannot demote owner", admin, w.ownerA.UserID, tenancy.RoleAdmin, tenancy.ErrForbidden},
		{"last owner stays", w.ownerA, w.ownerA.UserID, tenancy.RoleAdmin, tenancy.ErrLastOwner},
		{"bad role", w.ownerA, other.UserID, "god", tenancy.ErrInvalidInput},
		{"other org's member", w.ownerA, w.ownerB.UserID, tenancy.RoleViewer, tenancy.ErrNotFound},
		{"owner of B in A's org", w.ownerB, other.UserID, tenancy.RoleAdmin, tenancy.ErrNotFound},
		{"admin promotes viewer", admin, other.UserID, tenancy.RoleMember, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := w.members.ChangeRole(ctx, c.actor, c.target, c.role)
			if c.want == nil {
				noErr(t, err)
				return
			}
			wantErr(t, err, c.want)
		})
	}
	if m, _ := w.store.Membership(ctx, w.orgA.ID, other.UserID); m.Role != tenancy.RoleMember {
		t.Fatalf("role after change %s", m.Role)
	}
	wantErr(t, w.members.Remove(ctx, member, other.UserID), tenancy.ErrForbidden)
	wantErr(t, w.members.Remove(ctx, admin, w.ownerA.UserID), tenancy.ErrForbidden)
	wantErr(t, w.members.Remove(ctx, w.ownerA, w.ownerA.UserID), tenancy.ErrLastOwner)
	wantErr(t, w.members.Remove(ctx, w.ownerB, member.UserID), tenancy.ErrNotFound)
	noErr(t, w.members.Remove(ctx, member, member.UserID)) // leaving is allowed
	noErr(t, w.members.Remove(ctx, admin, other.UserID))
	list, err := w.members.List(ctx, admin)
	noErr(t, err)
	if len(list) != 2 || list[0].UserID != w.ownerA.UserID || list[1].UserID != admin.UserID {
		t.Fatalf("members %+v", list)
	}
}

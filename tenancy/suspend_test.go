package tenancy_test

import (
	"context"
	"errors"
	"testing"

	"github.com/heddle-gw/heddle/tenancy"
)

// TestRemovedMemberKeysSuspended: in an organisation that suspends, a
// removed member's key is refused at once on this replica (though cached)
// with ErrKeySuspended beside ErrUnauthorized; only admins and owners
// choose the setting and reinstate, after which the key serves; in one that
// keeps the default the key is revoked and cannot be reinstated.
func TestRemovedMemberKeysSuspended(t *testing.T) {
	ctx := context.Background()
	for _, d := range []tenancy.KeyDisposal{tenancy.KeysSuspend, tenancy.KeysRevoke} {
		t.Run(string(d), func(t *testing.T) {
			w := newWorld(t)
			auth := tenancy.NewAuthenticator(w.store, tenancy.AuthConfig{Now: w.clock.Now})
			keys := tenancy.NewKeys(w.store, tenancy.KeysConfig{Now: w.clock.Now, Auth: auth})
			members := tenancy.NewMembers(w.store, tenancy.MembersConfig{Hasher: fastHasher(), Now: w.clock.Now, Auth: auth})
			member := w.join(t, "member@a.example", tenancy.RoleMember)
			admin := w.join(t, "admin@a.example", tenancy.RoleAdmin)

			if err := members.SetRemovedMemberKeys(ctx, member, d); !errors.Is(err, tenancy.ErrForbidden) {
				t.Fatalf("a member sets the policy: %v", err)
			}
			if err := members.SetRemovedMemberKeys(ctx, w.ownerA, "archive"); !errors.Is(err, tenancy.ErrInvalidInput) {
				t.Fatalf("unknown disposal: %v", err)
			}
			noErr(t, members.SetRemovedMemberKeys(ctx, admin, d))
			if o, _ := w.store.OrgByID(ctx, w.orgA.ID); o.RemovedMemberKeys != d {
				t.Fatalf("org A disposal %q, want %s", o.RemovedMemberKeys, d)
			}
			if o, _ := w.store.OrgByID(ctx, w.orgB.ID); o.RemovedMemberKeys != tenancy.KeysRevoke {
				t.Fatalf("org B disposal changed to %q", o.RemovedMemberKeys)
			}

			k, plain, err := keys.Create(ctx, member, tenancy.KeyInput{Name: "member's"})
			noErr(t, err)
			_, err = auth.Authenticate(ctx, plain) // now cached
			noErr(t, err)
			noErr(t, members.Remove(ctx, w.ownerA, member.UserID))
			_, err = auth.Authenticate(ctx, plain)
			wantErr(t, err, tenancy.ErrUnauthorized)
			if suspended := errors.Is(err, tenancy.ErrKeySuspended); suspended != (d == tenancy.KeysSuspend) {
				t.Fatalf("after removal: %v (suspended %v)", err, suspended)
			}
			if _, err := keys.Reinstate(ctx, tenancy.Actor{UserID: "u", OrgID: w.orgA.ID, Role: tenancy.RoleMember}, k.ID); !errors.Is(err, tenancy.ErrForbidden) {
				t.Fatalf("a member reinstates: %v", err)
			}
			if _, err := keys.Reinstate(ctx, w.ownerB, k.ID); !errors.Is(err, tenancy.ErrNotFound) {
				t.Fatalf("another organisation reinstates: %v", err)
			}
			got, err := keys.Reinstate(ctx, admin, k.ID)
			if d == tenancy.KeysRevoke {
				wantErr(t, err, tenancy.ErrConflict)
				return
			}
			noErr(t, err)
			if got.SuspendedAt != nil || got.RevokedAt != nil {
				t.Fatalf("reinstated key %+v", got)
			}
			p, err := auth.Authenticate(ctx, plain)
			noErr(t, err)
			if p.KeyID != k.ID {
				t.Fatalf("principal %+v", p)
			}
		})
	}
}

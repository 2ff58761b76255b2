package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenancy/sqlstore"
)

// TestLastOwnerUnderRace: two owners demote each other at the same time; the
// org lock lets exactly one win, so the org always keeps an owner.
func TestLastOwnerUnderRace(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		s := sqlstore.New(d.DB)
		at := time.Now().UTC()
		a := &tenancy.User{ID: "user-a", Email: "a@example.com", PasswordHash: "x", CreatedAt: at}
		b := &tenancy.User{ID: "user-b", Email: "b@example.com", PasswordHash: "x", CreatedAt: at}
		o := &tenancy.Org{ID: "org-1", Name: "Org", Slug: "org", CreatedAt: at}
		if err := s.CreateAccount(ctx, a, o, &tenancy.Membership{OrgID: o.ID, UserID: a.ID, Role: tenancy.RoleOwner, CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateAccount(ctx, b, &tenancy.Org{ID: "org-2", Name: "B", Slug: "b", CreatedAt: at},
			&tenancy.Membership{OrgID: "org-2", UserID: b.ID, Role: tenancy.RoleOwner, CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
		inv := &tenancy.Invitation{ID: "inv", OrgID: o.ID, Email: b.Email, Role: tenancy.RoleOwner, TokenHash: "h", InvitedBy: a.ID, CreatedAt: at, ExpiresAt: at.Add(time.Hour)}
		if err := s.CreateInvitation(ctx, inv); err != nil {
			t.Fatal(err)
		}
		if err := s.AcceptInvitation(ctx, inv.ID, nil, &tenancy.Membership{OrgID: o.ID, UserID: b.ID, Role: tenancy.RoleOwner, CreatedAt: at}, at); err != nil {
			t.Fatal(err)
		}
		for round := range 10 {
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, u := range []string{a.ID, b.ID} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if round%2 == 0 {
						errs[i] = s.SetRole(ctx, o.ID, u, tenancy.RoleAdmin)
					} else {
						errs[i] = s.DeleteMembership(ctx, o.ID, u, time.Now(), tenancy.KeysRevoke)
					}
				}()
			}
			wg.Wait()
			failed := 0
			for _, err := range errs {
				if errors.Is(err, tenancy.ErrLastOwner) {
					failed++
				} else if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
			}
			ms, _ := s.OrgMembers(ctx, o.ID)
			owners := 0
			for _, m := range ms {
				if m.Role == tenancy.RoleOwner {
					owners++
				}
			}
			if failed != 1 || owners != 1 {
				t.Fatalf("round %d: %d refused, %d owners left; want 1 and 1", round, failed, owners)
			}
			// Restore two owners for the next round.
			for _, u := range []string{a.ID, b.ID} {
				if _, err := s.Membership(ctx, o.ID, u); errors.Is(err, tenancy.ErrNotFound) {
					i := &tenancy.Invitation{ID: fmt.Sprint("inv", round, u), OrgID: o.ID, Email: u, Role: tenancy.RoleOwner,
						TokenHash: fmt.Sprint("h", round, u), InvitedBy: a.ID, CreatedAt: at, ExpiresAt: at.Add(time.Hour)}
					if err := s.CreateInvitation(ctx, i); err != nil {
						t.Fatal(err)
					}
					if err := s.AcceptInvitation(ctx, i.ID, nil, &tenancy.Membership{OrgID: o.ID, UserID: u, Role: tenancy.RoleOwner, CreatedAt: at}, at); err != nil {
						t.Fatal(err)
					}
				} else if err := s.SetRole(ctx, o.ID, u, tenancy.RoleOwner); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

// TestAddWhileReencrypting: credentials added while the org is re-encrypted
// under fresh DEKs (over and over) are never sealed under a discarded DEK:
// every one decrypts afterwards.
func TestAddWhileReencrypting(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		e := newVaultEnv(t, d, tenancy.VaultConfig{}, tenancy.ResolverConfig{TTL: -1})
		e.store = sqlstore.New(d.DB)
		actor := e.owner(t, "alice@example.com", "Acme")
		if _, err := e.creds.Add(ctx, actor, tenancy.CredentialInput{Provider: "seed", Secret: "sk-seed-secret-0000"}); err != nil {
			t.Fatal(err)
		}
		const n = 12
		var wg sync.WaitGroup
		addErrs := make(chan error, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				_, err := e.creds.Add(ctx, actor, tenancy.CredentialInput{Provider: fmt.Sprintf("p%d", i), Secret: fmt.Sprintf("sk-added-%02d-%s", i, strings.Repeat("s", 12))})
				addErrs <- err
			}
		}()
		other, err := tenancy.NewVault(tenancy.FileKeyset(e.path), sqlstore.New(d.DB), tenancy.VaultConfig{})
		if err != nil {
			t.Fatal(err)
		}
		rounds := 0
		for range 6 {
			if _, err := other.ReencryptOrg(ctx, actor.OrgID); err != nil {
				t.Fatalf("re-encrypt: %v", err)
			}
			rounds++
		}
		wg.Wait()
		close(addErrs)
		for err := range addErrs {
			if err != nil {
				t.Fatalf("add during re-encryption: %v", err)
			}
		}
		dk, _ := e.store.DataKey(ctx, actor.OrgID)
		if dk.Version != int64(rounds)+1 {
			t.Fatalf("DEK version %d after %d re-encryptions", dk.Version, rounds)
		}
		fresh, _ := tenancy.NewVault(tenancy.FileKeyset(e.path), sqlstore.New(d.DB), tenancy.VaultConfig{})
		r := tenancy.NewCredentialResolver(sqlstore.New(d.DB), fresh, tenancy.ResolverConfig{TTL: -1})
		for i := range n {
			s, err := r.Resolve(ctx, actor.OrgID, fmt.Sprintf("p%d", i))
			if err != nil || s.Value != fmt.Sprintf("sk-added-%02d-%s", i, strings.Repeat("s", 12)) {
				t.Fatalf("credential p%d after re-encryptions: %v", i, err)
			}
		}
	})
}

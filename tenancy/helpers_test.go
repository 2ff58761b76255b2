package tenancy_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenancy/tenancytest"
)

// clock is a settable clock for tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fastHasher keeps argon2id cheap in tests.
func fastHasher() *tenancy.Hasher {
	return tenancy.NewHasher(tenancy.PasswordParams{Memory: 64, Time: 1, Threads: 1})
}

func wantErr(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("got error %v, want %v", err, want)
	}
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// world is a memory store with two organisations, A and B, each with an
// owner, and the services over it.
type world struct {
	store    *tenancytest.Memory
	clock    *clock
	accounts *tenancy.Accounts
	members  *tenancy.Members
	ownerA   tenancy.Actor
	ownerB   tenancy.Actor
	orgA     *tenancy.Org
	orgB     *tenancy.Org
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{store: tenancytest.NewMemory(), clock: newClock()}
	w.accounts = tenancy.NewAccounts(w.store, tenancy.AccountsConfig{Hasher: fastHasher(), Now: w.clock.Now})
	w.members = tenancy.NewMembers(w.store, tenancy.MembersConfig{Hasher: fastHasher(), Now: w.clock.Now})
	ctx := context.Background()
	ua, oa, err := w.accounts.Signup(ctx, tenancy.SignupInput{Email: "alice@a.example", Password: "correct horse battery", OrgName: "Org A"})
	noErr(t, err)
	ub, ob, err := w.accounts.Signup(ctx, tenancy.SignupInput{Email: "bob@b.example", Password: "correct horse battery", OrgName: "Org B"})
	noErr(t, err)
	w.orgA, w.orgB = oa, ob
	w.ownerA = tenancy.Actor{UserID: ua.ID, OrgID: oa.ID, Role: tenancy.RoleOwner}
	w.ownerB = tenancy.Actor{UserID: ub.ID, OrgID: ob.ID, Role: tenancy.RoleOwner}
	return w
}

// join adds a user with role to org A through an invitation and returns the actor.
func (w *world) join(t *testing.T, email string, role tenancy.Role) tenancy.Actor {
	t.Helper()
	ctx := context.Background()
	_, token, err := w.members.Invite(ctx, w.ownerA, email, role)
	noErr(t, err)
	u, m, err := w.members.Accept(ctx, token, tenancy.AcceptInput{Password: "another good password"})
	noErr(t, err)
	return tenancy.Actor{UserID: u.ID, OrgID: m.OrgID, Role: m.Role}
}

func asValidation(err error, target **tenancy.ValidationError) bool { return errors.As(err, target) }

package web_test

import (
	"testing"

	"github.com/heddle-gw/heddle/tenancy"
)

// TestSignupDoesNotRevealRegisteredEmails: a sign-up with a registered
// email gets the very answer a new email gets (status, body, no cookies),
// and changes nothing about the existing account.
func TestSignupDoesNotRevealRegisteredEmails(t *testing.T) {
	f := newFixture(t)
	owner := f.browser()
	owner.signup("alice@example.com", "Acme")

	signup := func(email string) *resp {
		c := f.browser()
		return c.mustStatus(c.do("POST", "/api/v1/signup", map[string]string{"email": email, "password": "mallory's own password", "org_name": "Evil"}), 202)
	}
	taken, fresh := signup("ALICE@example.com"), signup("bob@example.com")
	if string(taken.body) != string(fresh.body) {
		t.Fatalf("answers differ:\n taken %s\n fresh %s", taken.body, fresh.body)
	}
	if m := taken.json(t); m["status"] != "accepted" || str(m, "message") == "" {
		t.Fatalf("signup body %s", taken.body)
	}
	for _, r := range []*resp{taken, fresh} {
		if cookies := r.header.Values("Set-Cookie"); len(cookies) != 0 {
			t.Fatalf("signup set cookies %v", cookies)
		}
	}
	// The existing account keeps its password and has no new organisation.
	anon := f.browser()
	anon.mustStatus(anon.do("POST", "/api/v1/login", map[string]string{"email": "alice@example.com", "password": "mallory's own password"}), 401)
	r := owner.mustStatus(owner.do("GET", "/api/v1/orgs", nil), 200)
	if n := len(r.json(t)["orgs"].([]any)); n != 1 {
		t.Fatalf("alice has %d organisations after a sign-up with her email: %s", n, r.body)
	}
	// The new email's account works with the password it was given.
	bob := f.browser()
	if r := bob.mustStatus(bob.do("POST", "/api/v1/login", map[string]string{"email": "bob@example.com", "password": "mallory's own password"}), 200); str(r.json(t), "org", "name") != "Evil" {
		t.Fatalf("bob's log-in: %s", r.body)
	}
}

// TestOrgCreationLimitedPerAddress: sign-ups and "create organisation"
// share one per-address organisation budget.
func TestOrgCreationLimitedPerAddress(t *testing.T) {
	f := newFixture(t, withLimiter(tenancy.NewLoginLimiter(tenancy.LoginLimitConfig{
		PerIP: tenancy.Rate{PerMinute: 100, Burst: 100}, PerIPOrgs: tenancy.Rate{PerMinute: 1.0 / 60, Burst: 2},
	})))
	c := f.browser()
	c.signup("a@example.com", "A")
	c.mustStatus(c.do("POST", "/api/v1/orgs", map[string]string{"name": "Second"}), 201)
	r := c.mustStatus(c.do("POST", "/api/v1/orgs", map[string]string{"name": "Third"}), 429)
	if code, _ := r.errCode(t); code != "tenancy.rate_limited" || r.header.Get("Retry-After") == "" {
		t.Fatalf("third organisation: %s Retry-After %q", r.body, r.header.Get("Retry-After"))
	}
	anon := f.browser()
	anon.mustStatus(anon.do("POST", "/api/v1/signup", map[string]string{"email": "b@example.com", "password": "correct horse battery"}), 429)
}

// TestInvitationPasswordGuessesThrottled: wrong passwords for an existing
// account at invitation acceptance count as failed log-ins of the address.
func TestInvitationPasswordGuessesThrottled(t *testing.T) {
	f := newFixture(t, withLimiter(tenancy.NewLoginLimiter(tenancy.LoginLimitConfig{
		PerIP: tenancy.Rate{PerMinute: 100, Burst: 100}, PerIPOrgs: tenancy.Rate{PerMinute: 100, Burst: 100}, AddressFailures: 2,
	})))
	alice := f.browser()
	org := str(alice.signup("alice@example.com", "Acme"), "org", "id")
	f.browser().signup("bob@example.com", "Bob's")
	r := alice.mustStatus(alice.do("POST", "/api/v1/orgs/"+org+"/members", map[string]string{"email": "bob@example.com", "role": "member"}), 201)
	path := str(r.json(t), "accept_path")
	guesser := f.browser()
	for range 3 {
		guesser.mustStatus(guesser.do("POST", path, map[string]string{"password": "not bob's password"}), 401)
	}
	r = guesser.mustStatus(guesser.do("POST", path, map[string]string{"password": "correct horse battery"}), 429)
	if code, _ := r.errCode(t); code != "tenancy.rate_limited" {
		t.Fatalf("after the address's failures: %s", r.body)
	}
}

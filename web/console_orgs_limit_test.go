package web_test

import (
	"net/url"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/tenancy"
)

// TestConsoleOrgCreationLimited: the console's "create organisation" shares
// the address's organisation budget with sign-up.
func TestConsoleOrgCreationLimited(t *testing.T) {
	f := newConsoleFixture(t, func(d *deps) {
		d.Limiter = tenancy.NewLoginLimiter(tenancy.LoginLimitConfig{
			PerIP: tenancy.Rate{PerMinute: 100, Burst: 100}, PerIPOrgs: tenancy.Rate{PerMinute: 1.0 / 60, Burst: 2},
		})
	})
	v := f.visitor()
	v.signup("limited@example.com")
	if p := v.post("/orgs", url.Values{"name": {"Second Org"}}, nil); p.status != fiber.StatusSeeOther {
		t.Fatalf("second organisation: %d %s", p.status, p.body)
	}
	if p := v.post("/orgs", url.Values{"name": {"Third Org"}}, nil); p.status != fiber.StatusTooManyRequests {
		t.Fatalf("third organisation: %d %s", p.status, p.body)
	}
}

// TestConsoleInvitationPasswordGuessesThrottled: wrong passwords of the
// invited existing account count as the address's failed log-ins.
func TestConsoleInvitationPasswordGuessesThrottled(t *testing.T) {
	f := newConsoleFixture(t, func(d *deps) {
		d.Limiter = tenancy.NewLoginLimiter(tenancy.LoginLimitConfig{
			PerIP: tenancy.Rate{PerMinute: 100, Burst: 100}, PerIPOrgs: tenancy.Rate{PerMinute: 100, Burst: 100}, AddressFailures: 2,
		})
	})
	owner := f.visitor()
	owner.signup("owner@example.com")
	f.visitor().signup("existing@example.com")
	token := owner.invite("existing@example.com", "member")
	guesser := f.visitor()
	for range 3 {
		if p := guesser.acceptForm(token, "not the password"); p.status != fiber.StatusUnauthorized {
			t.Fatalf("wrong password: %d %s", p.status, p.body)
		}
	}
	if p := guesser.acceptForm(token, "correct horse battery staple"); p.status != fiber.StatusTooManyRequests {
		t.Fatalf("after the address's failures: %d %s", p.status, p.body)
	}
}

package tenancy_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/heddle-gw/heddle/tenancy"
)

var secret = []byte("0123456789abcdef0123456789abcdef-test")

func newSessions(t *testing.T, w *world) *tenancy.Sessions {
	t.Helper()
	s, err := tenancy.NewSessions(w.store, tenancy.SessionConfig{Secret: secret, Now: w.clock.Now})
	noErr(t, err)
	return s
}

func TestSessionSecretTooShort(t *testing.T) {
	_, err := tenancy.NewSessions(nil, tenancy.SessionConfig{Secret: []byte("short")})
	wantErr(t, err, tenancy.ErrWeakSecret)
}

func TestSessionVerify(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	s := newSessions(t, w)
	tok, err := s.Start(ctx, w.ownerA.UserID, w.orgA.ID)
	noErr(t, err)
	if !tok.AccessExpiresAt.Equal(w.clock.Now().Add(15*time.Minute)) || !tok.RefreshExpiresAt.Equal(w.clock.Now().Add(7*24*time.Hour)) {
		t.Fatalf("expiries %v %v", tok.AccessExpiresAt, tok.RefreshExpiresAt)
	}
	info, err := s.Verify(ctx, tok.Access)
	noErr(t, err)
	if info.SessionID != tok.SessionID || info.UserID != w.ownerA.UserID || info.OrgID != w.orgA.ID {
		t.Fatalf("session info %+v", info)
	}
	row, _ := w.store.SessionByID(ctx, tok.SessionID)
	if row.RefreshHash == "" || strings.Contains(row.RefreshHash, tok.Refresh) || row.RefreshHash == tok.Refresh {
		t.Fatalf("refresh token stored in clear: %+v", row)
	}

	now := w.clock.Now()
	claims := func(mut func(*jwt.RegisteredClaims)) jwt.RegisteredClaims {
		c := jwt.RegisteredClaims{
			Issuer: "heddle", Audience: jwt.ClaimStrings{"heddle-console"}, Subject: w.ownerA.UserID, ID: tok.SessionID,
			ExpiresAt: jwt.NewNumericDate(now.Add(time.Minute)), IssuedAt: jwt.NewNumericDate(now),
		}
		mut(&c)
		return c
	}
	sign := func(m jwt.SigningMethod, key any, c jwt.RegisteredClaims) string {
		s, err := jwt.NewWithClaims(m, c).SignedString(key)
		noErr(t, err)
		return s
	}
	same := func(*jwt.RegisteredClaims) {}
	// The control token is accepted, so each case below fails for its one reason.
	if _, err := s.Verify(ctx, sign(jwt.SigningMethodHS256, secret, claims(same))); err != nil {
		t.Fatalf("control token refused: %v", err)
	}
	for _, c := range []struct{ name, token string }{
		{"HS512", sign(jwt.SigningMethodHS512, secret, claims(same))},
		{"alg none", sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims(same))},
		{"wrong secret", sign(jwt.SigningMethodHS256, []byte("another secret that is long enough!!"), claims(same))},
		{"wrong issuer", sign(jwt.SigningMethodHS256, secret, claims(func(c *jwt.RegisteredClaims) { c.Issuer = "evil" }))},
		{"wrong audience", sign(jwt.SigningMethodHS256, secret, claims(func(c *jwt.RegisteredClaims) { c.Audience = jwt.ClaimStrings{"heddle-api"} }))},
		{"no audience", sign(jwt.SigningMethodHS256, secret, claims(func(c *jwt.RegisteredClaims) { c.Audience = nil }))},
		{"expired", sign(jwt.SigningMethodHS256, secret, claims(func(c *jwt.RegisteredClaims) { c.ExpiresAt = jwt.NewNumericDate(now.Add(-time.Minute)) }))},
		{"no expiry", sign(jwt.SigningMethodHS256, secret, claims(func(c *jwt.RegisteredClaims) { c.ExpiresAt = nil }))},
		{"unknown session", sign(jwt.SigningMethodHS256, secret, claims(func(c *jwt.RegisteredClaims) { c.ID = "nope" }))},
		{"other user's session", sign(jwt.SigningMethodHS256, secret, claims(func(c *jwt.RegisteredClaims) { c.Subject = w.ownerB.UserID }))},
		{"tampered", tok.Access[:len(tok.Access)-2] + "xx"},
		{"garbage", "not.a.jwt"},
		{"empty", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			info, err := s.Verify(ctx, c.token)
			wantErr(t, err, tenancy.ErrUnauthorized)
			if info != nil {
				t.Fatal("info returned with error")
			}
		})
	}

	t.Run("expired by time", func(t *testing.T) {
		w.clock.Advance(15*time.Minute + 6*time.Second)
		defer w.clock.Advance(-(15*time.Minute + 6*time.Second))
		_, err := s.Verify(ctx, tok.Access)
		wantErr(t, err, tenancy.ErrUnauthorized)
	})
}

func TestSessionRevocation(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	local, remote := newSessions(t, w), newSessions(t, w)
	tok, err := local.Start(ctx, w.ownerA.UserID, w.orgA.ID)
	noErr(t, err)
	for _, s := range []*tenancy.Sessions{local, remote} {
		_, err := s.Verify(ctx, tok.Access)
		noErr(t, err)
	}
	noErr(t, local.Revoke(ctx, tok.SessionID))
	_, err = local.Verify(ctx, tok.Access)
	wantErr(t, err, tenancy.ErrUnauthorized)
	w.clock.Advance(2 * time.Second) // the other replica's row cache expires
	_, err = remote.Verify(ctx, tok.Access)
	wantErr(t, err, tenancy.ErrUnauthorized)
	_, err = local.Refresh(ctx, tok.Refresh)
	wantErr(t, err, tenancy.ErrUnauthorized)
}

func TestSessionRefresh(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	s := newSessions(t, w)
	tok, err := s.Start(ctx, w.ownerA.UserID, w.orgA.ID)
	noErr(t, err)
	w.clock.Advance(20 * time.Minute)
	_, err = s.Verify(ctx, tok.Access)
	wantErr(t, err, tenancy.ErrUnauthorized)

	next, err := s.Refresh(ctx, tok.Refresh)
	noErr(t, err)
	if next.SessionID != tok.SessionID || next.Refresh == tok.Refresh || next.CSRF != tok.CSRF {
		t.Fatalf("refreshed tokens %+v", next)
	}
	if _, err := s.Verify(ctx, next.Access); err != nil {
		t.Fatalf("refreshed access token: %v", err)
	}
	for _, bad := range []string{"", "nodot", tok.SessionID + ".wrong", "nope." + strings.Repeat("a", 43)} {
		_, err := s.Refresh(ctx, bad)
		wantErr(t, err, tenancy.ErrUnauthorized)
	}
	// Replaying the rotated refresh token after the grace period means it was
	// stolen: the session is revoked.
	w.clock.Advance(time.Minute)
	_, err = s.Refresh(ctx, tok.Refresh)
	wantErr(t, err, tenancy.ErrUnauthorized)
	_, err = s.Verify(ctx, next.Access)
	wantErr(t, err, tenancy.ErrUnauthorized)
	_, err = s.Refresh(ctx, next.Refresh)
	wantErr(t, err, tenancy.ErrUnauthorized)

	// The session's absolute lifetime bounds refreshes.
	tok2, err := s.Start(ctx, w.ownerA.UserID, w.orgA.ID)
	noErr(t, err)
	w.clock.Advance(7*24*time.Hour + time.Second)
	_, err = s.Refresh(ctx, tok2.Refresh)
	wantErr(t, err, tenancy.ErrUnauthorized)
}

func TestSessionSwitchOrgAndCSRF(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	s := newSessions(t, w)
	tok, err := s.Start(ctx, w.ownerA.UserID, w.orgA.ID)
	noErr(t, err)
	noErr(t, s.SwitchOrg(ctx, tok.SessionID, w.orgB.ID))
	info, err := s.Verify(ctx, tok.Access)
	noErr(t, err)
	if info.OrgID != w.orgB.ID {
		t.Fatalf("org after switch %s", info.OrgID)
	}

	other, err := s.Start(ctx, w.ownerB.UserID, w.orgB.ID)
	noErr(t, err)
	if !s.CheckCSRF(tok.SessionID, tok.CSRF) {
		t.Fatal("own CSRF token refused")
	}
	for _, c := range []struct{ name, token string }{
		{"other session's token", other.CSRF},
		{"empty", ""},
		{"truncated", tok.CSRF[:10]},
	} {
		if s.CheckCSRF(tok.SessionID, c.token) {
			t.Errorf("%s accepted", c.name)
		}
	}
	otherSecret, _ := tenancy.NewSessions(w.store, tenancy.SessionConfig{Secret: []byte(strings.Repeat("z", 32)), Now: w.clock.Now})
	if otherSecret.CSRFToken(tok.SessionID) == tok.CSRF {
		t.Fatal("CSRF token does not depend on the secret")
	}
}

// TestRefreshForgedTokenKeepsVictim: a refresh token naming a victim's
// session id with a forged MAC is refused without revoking the victim's
// session (only a genuinely issued, already rotated token means theft).
func TestRefreshForgedTokenKeepsVictim(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	s := newSessions(t, w)
	victim, err := s.Start(ctx, w.ownerA.UserID, w.orgA.ID)
	noErr(t, err)
	w.clock.Advance(time.Minute) // past the reuse grace period
	parts := strings.Split(victim.Refresh, ".")
	forged := []string{
		victim.SessionID + "." + strings.Repeat("A", 43),
		victim.SessionID + "." + strings.Repeat("A", 43) + "." + strings.Repeat("B", 43),
		victim.SessionID + "." + parts[1] + ".x" + parts[len(parts)-1][1:],
	}
	for _, f := range forged {
		_, err := s.Refresh(ctx, f)
		wantErr(t, err, tenancy.ErrUnauthorized)
	}
	if _, err := s.Verify(ctx, victim.Access); err != nil {
		t.Fatalf("victim's access token refused after forged refreshes: %v", err)
	}
	if _, err := s.Refresh(ctx, victim.Refresh); err != nil {
		t.Fatalf("victim's refresh token refused after forged refreshes: %v", err)
	}
}

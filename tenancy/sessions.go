package tenancy

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// MinSessionSecretLen is the least length of the JWT signing secret.
const MinSessionSecretLen = 32

// SessionConfig configures console sessions.
type SessionConfig struct {
	// Secret signs access tokens (HS256) and derives CSRF tokens; at least
	// MinSessionSecretLen bytes.
	Secret     []byte
	Issuer     string        // "" means "heddle"
	Audience   string        // "" means "heddle-console"
	AccessTTL  time.Duration // 0 means 15 min
	RefreshTTL time.Duration // 0 means 7 days; a session's absolute lifetime
	// RowCacheTTL bounds how long a session row is reused when checking an
	// access token, and so how late a revocation on another replica applies.
	// 0 means 2 s; negative disables the cache.
	RowCacheTTL time.Duration
	Now         func() time.Time // nil means time.Now
}

// Tokens are what a log-in or refresh hands to the client.
type Tokens struct {
	SessionID        string
	Access           string // JWT, for the session cookie or a Bearer header
	AccessExpiresAt  time.Time
	Refresh          string // opaque; only its hash is stored
	RefreshExpiresAt time.Time
	CSRF             string // the session's CSRF token
}

// SessionInfo is a verified access token's session.
type SessionInfo struct {
	SessionID string
	UserID    string
	OrgID     string // the organisation the session acts in (from the row)
}

type rowEntry struct {
	s       *Session
	fetched time.Time
}

// Sessions issues, verifies, refreshes and revokes console sessions.
type Sessions struct {
	store      SessionStore
	cfg        SessionConfig
	csrfKey    []byte
	refreshKey []byte // MACs refresh tokens

	mu    sync.Mutex
	cache map[string]rowEntry
}

// NewSessions returns a Sessions service. It returns ErrWeakSecret for a
// secret shorter than MinSessionSecretLen.
func NewSessions(store SessionStore, cfg SessionConfig) (*Sessions, error) {
	if len(cfg.Secret) < MinSessionSecretLen {
		return nil, ErrWeakSecret
	}
	if cfg.Issuer == "" {
		cfg.Issuer = "heddle"
	}
	if cfg.Audience == "" {
		cfg.Audience = "heddle-console"
	}
	if cfg.AccessTTL <= 0 {
		cfg.AccessTTL = 15 * time.Minute
	}
	if cfg.RefreshTTL <= 0 {
		cfg.RefreshTTL = 7 * 24 * time.Hour
	}
	if cfg.RowCacheTTL == 0 {
		cfg.RowCacheTTL = 2 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Sessions{store: store, cfg: cfg, csrfKey: derive(cfg.Secret, "heddle csrf v1"),
		refreshKey: derive(cfg.Secret, "heddle refresh v1"), cache: make(map[string]rowEntry)}, nil
}

// derive is the HMAC-SHA256 of label under secret: one key per purpose.
func derive(secret []byte, label string) []byte {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(label))
	return mac.Sum(nil)
}

// newRefresh returns a fresh refresh token of session id:
// id.random.MAC(id.random). The MAC lets Refresh tell a token this server
// issued from a forgery before it acts on the session it names.
func (s *Sessions) newRefresh(id string) string {
	body := id + "." + randomToken(32)
	return body + "." + s.refreshMAC(body)
}

func (s *Sessions) refreshMAC(body string) string {
	mac := hmac.New(sha256.New, s.refreshKey)
	mac.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// refreshID returns the session id of a refresh token whose MAC verifies.
func (s *Sessions) refreshID(refresh string) (string, bool) {
	i := strings.LastIndexByte(refresh, '.')
	if i < 0 || len(refresh) > 200 {
		return "", false
	}
	body := refresh[:i]
	if subtle.ConstantTimeCompare([]byte(s.refreshMAC(body)), []byte(refresh[i+1:])) != 1 {
		return "", false
	}
	id, _, ok := strings.Cut(body, ".")
	return id, ok && id != ""
}

// Start creates a session for userID acting in orgID and returns its tokens.
func (s *Sessions) Start(ctx context.Context, userID, orgID string) (*Tokens, error) {
	now := s.cfg.Now().UTC()
	id := newID()
	refresh := s.newRefresh(id)
	sess := &Session{
		ID: id, UserID: userID, OrgID: orgID, RefreshHash: sha256Hex(refresh),
		CreatedAt: now, RefreshedAt: now, ExpiresAt: now.Add(s.cfg.RefreshTTL),
	}
	if err := s.store.CreateSession(ctx, sess); err != nil {
		return nil, fmt.Errorf("tenancy: start session: %w", err)
	}
	return s.tokens(sess, refresh, now)
}

func (s *Sessions) tokens(sess *Session, refresh string, now time.Time) (*Tokens, error) {
	exp := now.Add(s.cfg.AccessTTL)
	if exp.After(sess.ExpiresAt) {
		exp = sess.ExpiresAt
	}
	claims := jwt.RegisteredClaims{
		Issuer: s.cfg.Issuer, Subject: sess.UserID, Audience: jwt.ClaimStrings{s.cfg.Audience},
		ExpiresAt: jwt.NewNumericDate(exp), NotBefore: jwt.NewNumericDate(now),
		IssuedAt: jwt.NewNumericDate(now), ID: sess.ID,
	}
	access, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(s.cfg.Secret)
	if err != nil {
		return nil, fmt.Errorf("tenancy: sign access token: %w", err)
	}
	return &Tokens{
		SessionID: sess.ID, Access: access, AccessExpiresAt: exp,
		Refresh: refresh, RefreshExpiresAt: sess.ExpiresAt, CSRF: s.CSRFToken(sess.ID),
	}, nil
}

// Verify checks an access token: HS256 only, signature, issuer, audience,
// expiry, and that its session row is neither revoked nor expired. Any
// failure is ErrUnauthorized except a store failure.
func (s *Sessions) Verify(ctx context.Context, access string) (*SessionInfo, error) {
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(access, &claims, func(*jwt.Token) (any, error) { return s.cfg.Secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(s.cfg.Issuer), jwt.WithAudience(s.cfg.Audience),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithTimeFunc(s.cfg.Now),
		jwt.WithLeeway(5*time.Second))
	if err != nil || claims.ID == "" || claims.Subject == "" {
		return nil, ErrUnauthorized
	}
	sess, err := s.row(ctx, claims.ID)
	if errors.Is(err, ErrNotFound) {
		return nil, ErrUnauthorized
	}
	if err != nil {
		return nil, fmt.Errorf("tenancy: verify session: %w", err)
	}
	if !sess.Active(s.cfg.Now()) || sess.UserID != claims.Subject {
		return nil, ErrUnauthorized
	}
	return &SessionInfo{SessionID: sess.ID, UserID: sess.UserID, OrgID: sess.OrgID}, nil
}

func (s *Sessions) row(ctx context.Context, id string) (*Session, error) {
	now := s.cfg.Now()
	s.mu.Lock()
	e, ok := s.cache[id]
	s.mu.Unlock()
	if ok && now.Sub(e.fetched) < s.cfg.RowCacheTTL {
		return e.s, nil
	}
	sess, err := s.store.SessionByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if s.cfg.RowCacheTTL > 0 {
		s.mu.Lock()
		if len(s.cache) >= 10_000 {
			for k, v := range s.cache {
				if now.Sub(v.fetched) >= s.cfg.RowCacheTTL {
					delete(s.cache, k)
				}
			}
		}
		if len(s.cache) < 10_000 {
			s.cache[id] = rowEntry{s: sess, fetched: now}
		}
		s.mu.Unlock()
	}
	return sess, nil
}

func (s *Sessions) forget(id string) {
	s.mu.Lock()
	delete(s.cache, id)
	s.mu.Unlock()
}

// reuseGrace is how soon after a refresh a stale refresh token is treated as
// a lost race between two tabs rather than as theft.
const reuseGrace = 10 * time.Second

// Refresh exchanges a refresh token for new tokens (the refresh token
// rotates). Presenting an already-rotated token outside a short grace period
// revokes the whole session; a token whose MAC does not verify (a forgery
// naming someone's session id, or a token of an older format) is refused
// before the session is even read. Failures are ErrUnauthorized.
func (s *Sessions) Refresh(ctx context.Context, refresh string) (*Tokens, error) {
	id, ok := s.refreshID(refresh)
	if !ok {
		return nil, ErrUnauthorized
	}
	sess, err := s.store.SessionByID(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, ErrUnauthorized
	}
	if err != nil {
		return nil, fmt.Errorf("tenancy: refresh: %w", err)
	}
	now := s.cfg.Now().UTC()
	if !sess.Active(now) {
		return nil, ErrUnauthorized
	}
	presented := sha256Hex(refresh)
	if subtle.ConstantTimeCompare([]byte(presented), []byte(sess.RefreshHash)) != 1 {
		if now.Sub(sess.RefreshedAt) > reuseGrace {
			_ = s.Revoke(ctx, sess.ID)
		}
		return nil, ErrUnauthorized
	}
	next := s.newRefresh(sess.ID)
	if err := s.store.RotateRefresh(ctx, sess.ID, sess.RefreshHash, sha256Hex(next), now); err != nil {
		if errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) {
			return nil, ErrUnauthorized
		}
		return nil, fmt.Errorf("tenancy: refresh: %w", err)
	}
	sess.RefreshHash, sess.RefreshedAt = sha256Hex(next), now
	s.forget(sess.ID)
	return s.tokens(sess, next, now)
}

// RefreshSessionID returns the session id a refresh token names, without
// checking it (for CSRF checks before Refresh).
func RefreshSessionID(refresh string) string {
	id, _, _ := strings.Cut(refresh, ".")
	return id
}

// Revoke ends a session; its access tokens are refused from now on (on
// other replicas within RowCacheTTL).
func (s *Sessions) Revoke(ctx context.Context, sessionID string) error {
	if err := s.store.RevokeSession(ctx, sessionID, s.cfg.Now().UTC()); err != nil {
		return fmt.Errorf("tenancy: revoke session: %w", err)
	}
	s.forget(sessionID)
	return nil
}

// SwitchOrg makes the session act in orgID. The caller checks membership.
func (s *Sessions) SwitchOrg(ctx context.Context, sessionID, orgID string) error {
	if err := s.store.SetSessionOrg(ctx, sessionID, orgID); err != nil {
		return fmt.Errorf("tenancy: switch organisation: %w", err)
	}
	s.forget(sessionID)
	return nil
}

// CSRFToken returns the session's CSRF token: an HMAC of the session id, so
// it cannot be forged without the secret and is useless for another session.
func (s *Sessions) CSRFToken(sessionID string) string {
	mac := hmac.New(sha256.New, s.csrfKey)
	mac.Write([]byte(sessionID))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// CheckCSRF reports, in constant time, whether token is sessionID's CSRF token.
func (s *Sessions) CheckCSRF(sessionID, token string) bool {
	return subtle.ConstantTimeCompare([]byte(s.CSRFToken(sessionID)), []byte(token)) == 1
}

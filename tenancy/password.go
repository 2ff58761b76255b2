package tenancy

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// PasswordParams are argon2id cost parameters.
type PasswordParams struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
	// MaxConcurrent bounds simultaneous hashes (each holds Memory KiB).
	MaxConcurrent int
}

// DefaultPasswordParams follow OWASP's argon2id baseline (19 MiB, 2 passes,
// 1 lane), sized for small machines; log-in is rate limited on top.
var DefaultPasswordParams = PasswordParams{Memory: 19 * 1024, Time: 2, Threads: 1, MaxConcurrent: 4}

const (
	saltLen = 16
	hashLen = 32
)

var errBadHash = errors.New("tenancy: malformed password hash")

// Hasher hashes and verifies passwords with argon2id. The zero value is not
// usable; use NewHasher.
type Hasher struct {
	p   PasswordParams
	sem chan struct{}
	// dummy is verified against when a user does not exist, so log-in takes
	// the same time for unknown emails.
	dummy string
}

// NewHasher returns a Hasher; zero fields of p take the defaults.
func NewHasher(p PasswordParams) *Hasher {
	d := DefaultPasswordParams
	if p.Memory == 0 {
		p.Memory = d.Memory
	}
	if p.Time == 0 {
		p.Time = d.Time
	}
	if p.Threads == 0 {
		p.Threads = d.Threads
	}
	if p.MaxConcurrent <= 0 {
		p.MaxConcurrent = d.MaxConcurrent
	}
	h := &Hasher{p: p, sem: make(chan struct{}, p.MaxConcurrent)}
	salt := make([]byte, saltLen)
	_, _ = rand.Read(salt)
	h.dummy = h.encode(salt, argon2.IDKey([]byte("heddle-dummy-password"), salt, p.Time, p.Memory, p.Threads, hashLen), p)
	return h
}

// Hash returns the PHC string of password under a fresh random salt.
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	defer h.release()
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("tenancy: salt: %w", err)
	}
	sum := argon2.IDKey([]byte(password), salt, h.p.Time, h.p.Memory, h.p.Threads, hashLen)
	return h.encode(salt, sum, h.p), nil
}

// Verify reports whether password matches encoded, comparing in constant
// time with the parameters recorded in encoded.
func (h *Hasher) Verify(ctx context.Context, encoded, password string) (bool, error) {
	p, salt, want, err := decodeHash(encoded)
	if err != nil {
		return false, err
	}
	if err := h.acquire(ctx); err != nil {
		return false, err
	}
	defer h.release()
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// burn spends the time of one verification, for unknown users.
func (h *Hasher) burn(ctx context.Context, password string) {
	_, _ = h.Verify(ctx, h.dummy, password)
}

func (h *Hasher) acquire(ctx context.Context) error {
	select {
	case h.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *Hasher) release() { <-h.sem }

func (h *Hasher) encode(salt, sum []byte, p PasswordParams) string {
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(sum))
}

// maxMemoryKiB refuses hashes demanding absurd memory (a tampered row).
const maxMemoryKiB = 1 << 20

func decodeHash(s string) (PasswordParams, []byte, []byte, error) {
	var p PasswordParams
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return p, nil, nil, errBadHash
	}
	var v int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return p, nil, nil, errBadHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil {
		return p, nil, nil, errBadHash
	}
	if p.Memory == 0 || p.Memory > maxMemoryKiB || p.Time == 0 || p.Time > 16 || p.Threads == 0 {
		return p, nil, nil, errBadHash
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil || len(salt) < 8 {
		return p, nil, nil, errBadHash
	}
	sum, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(sum) < 16 || len(sum) > 64 {
		return p, nil, nil, errBadHash
	}
	return p, salt, sum, nil
}

package routing

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
)

// DefaultPinTTL is how long a pin lives after its last turn (sliding: every
// Put restarts it).
const DefaultPinTTL = time.Hour

// PinKey names one pin. Every field is part of the key, so pins never cross
// organisations, keys, end users, sessions or roles, whatever session id a
// caller sends.
type PinKey struct {
	OrgID string
	KeyID string
	// User is the caller's end user (llm.Request.User); empty is the key's
	// anonymous user.
	User    string
	Session string // from SessionOf
	Role    string // from PinRole
}

// Validate returns an error wrapping ErrPinKey when OrgID, KeyID, Session or
// Role is empty.
func (k PinKey) Validate() error {
	if k.OrgID == "" || k.KeyID == "" || k.Session == "" || k.Role == "" {
		return fmt.Errorf("%w: org, key, session and role are required", ErrPinKey)
	}
	return nil
}

// Canonical is the key's unambiguous encoding: a version tag and every field
// length-prefixed ("pin/v1|3:org|...").
func (k PinKey) Canonical() string {
	s := "pin/v1"
	for _, f := range []string{k.OrgID, k.KeyID, k.User, k.Session, k.Role} {
		s += fmt.Sprintf("|%d:%s", len(f), f)
	}
	return s
}

// Hash is the hex SHA-256 of Canonical: the storage key of the pin (stores
// never see the session id or end user in the clear).
func (k PinKey) Hash() string {
	sum := sha256.Sum256([]byte(k.Canonical()))
	return hex.EncodeToString(sum[:])
}

// Pin is a session's sticky model.
type Pin struct {
	// Model is the catalog id of the pinned model.
	Model string
	// Turns counts the turns served on Model since it was pinned.
	Turns int
	// LastInputTokens is the prompt size of the last turn (input plus cache
	// read and write): what the pinned model's prompt cache holds.
	LastInputTokens int
	Created         time.Time // when Model was pinned
	Updated         time.Time // the last turn
}

// Advance returns the pin after a turn served by model with the given prompt
// size at now: the same model adds a turn; another model (a switch, or no pin
// yet) starts a new pin with one turn.
func (p Pin) Advance(model string, inputTokens int, now time.Time) Pin {
	if p.Model != model || p.Model == "" {
		return Pin{Model: model, Turns: 1, LastInputTokens: inputTokens, Created: now, Updated: now}
	}
	p.Turns++
	p.LastInputTokens = inputTokens
	p.Updated = now
	return p
}

// PinStore keeps pins where every replica sees them.
type PinStore interface {
	// Get returns the pin under key; ok is false when there is none or it
	// expired. It returns an error wrapping ErrPinKey for an invalid key.
	Get(ctx context.Context, key PinKey) (p Pin, ok bool, err error)
	// Put stores p under key, expiring ttl from now (DefaultPinTTL when
	// ttl <= 0). It returns an error wrapping ErrPinKey for an invalid key.
	Put(ctx context.Context, key PinKey, p Pin, ttl time.Duration) error
}

package tenancy

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors. Callers compare with errors.Is; the edges map them to HTTP.
var (
	// ErrUnauthorized is the one answer for an unknown, malformed, expired or
	// revoked rk_ key or console token. It never says which.
	ErrUnauthorized = errors.New("tenancy: unauthorized")
	// ErrKeySuspended is a suspended key's answer, always together with
	// ErrUnauthorized: an admin may reinstate it.
	ErrKeySuspended = errors.New("tenancy: key suspended")
	// ErrInvalidLogin is a wrong email or password at log-in.
	ErrInvalidLogin = errors.New("tenancy: invalid email or password")
	// ErrForbidden means the actor's role does not allow the action.
	ErrForbidden = errors.New("tenancy: forbidden")
	// ErrNotFound means the object does not exist in the caller's organisation.
	ErrNotFound = errors.New("tenancy: not found")
	// ErrConflict is a uniqueness or concurrent-update conflict.
	ErrConflict = errors.New("tenancy: conflict")
	// ErrEmailTaken means a user with that email already exists.
	ErrEmailTaken = errors.New("tenancy: email already registered")
	// ErrInvalidInput is wrapped by *ValidationError.
	ErrInvalidInput = errors.New("tenancy: invalid input")
	// ErrRateLimited is wrapped by *RateLimitError.
	ErrRateLimited = errors.New("tenancy: rate limited")
	// ErrLastOwner refuses to demote or remove an organisation's last owner.
	ErrLastOwner = errors.New("tenancy: an organisation needs at least one owner")
	// ErrInvitationInvalid is an unknown, expired or already used invitation.
	ErrInvitationInvalid = errors.New("tenancy: invitation invalid or expired")
	// ErrNotConfigured means the organisation has no credential for a provider.
	ErrNotConfigured = errors.New("tenancy: provider not configured")
	// ErrCredentialTest means a credential test against its provider failed.
	ErrCredentialTest = errors.New("tenancy: credential test failed")
	// ErrDataKeyChanged means an organisation's data keyset was replaced
	// while a credential was being sealed or opened; re-read and retry.
	ErrDataKeyChanged = errors.New("tenancy: data key changed")
	// ErrVault is a failure to encrypt or decrypt with the BYOK vault.
	ErrVault = errors.New("tenancy: vault failure")
	// ErrMasterKeyset is a missing or unusable master keyset.
	ErrMasterKeyset = errors.New("tenancy: master keyset unusable")
	// ErrWeakSecret is a session signing secret that is too short.
	ErrWeakSecret = errors.New("tenancy: session secret too short")
)

// ValidationError names the input field that is wrong. It unwraps to
// ErrInvalidInput.
type ValidationError struct {
	Field   string
	Message string
}

// Error names the field and what is wrong with it.
func (e *ValidationError) Error() string {
	return fmt.Sprintf("tenancy: invalid %s: %s", e.Field, e.Message)
}

// Unwrap returns ErrInvalidInput.
func (e *ValidationError) Unwrap() error { return ErrInvalidInput }

func invalid(field, msg string) error { return &ValidationError{Field: field, Message: msg} }

// RateLimitError says when to try again. It unwraps to ErrRateLimited.
type RateLimitError struct {
	RetryAfter time.Duration
}

// Error says when to retry.
func (e *RateLimitError) Error() string {
	return fmt.Sprintf("tenancy: rate limited, retry after %s", e.RetryAfter)
}

// Unwrap returns ErrRateLimited.
func (e *RateLimitError) Unwrap() error { return ErrRateLimited }

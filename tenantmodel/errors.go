package tenantmodel

import (
	"errors"

	"github.com/heddle-gw/heddle/tenancy"
)

// Sentinel errors. Stores and the service also return tenancy.ErrNotFound
// (an object of another organisation is not found), tenancy.ErrConflict (a
// name already taken), tenancy.ErrForbidden and *tenancy.ValidationError.
var (
	// ErrProviderInUse refuses to delete a provider that still has models.
	ErrProviderInUse = errors.New("tenantmodel: provider still has models; delete them first")
	// ErrUnavailable means an organisation's models could not be read;
	// callers fail closed on it.
	ErrUnavailable = errors.New("tenantmodel: tenant models unavailable")
)

func invalid(field, msg string) error { return &tenancy.ValidationError{Field: field, Message: msg} }

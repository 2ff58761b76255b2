package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/tenancy"
)

// Store is a tenancy.Store over gorm.
type Store struct {
	db *gorm.DB
}

var _ tenancy.Store = (*Store)(nil)

// New returns a Store over db, which must be migrated.
func New(db *gorm.DB) *Store { return &Store{db: db} }

func (s *Store) conn(ctx context.Context) *gorm.DB { return s.db.WithContext(ctx) }

// tx runs fn in a transaction.
func (s *Store) tx(ctx context.Context, fn func(tx *gorm.DB) error) error {
	return s.conn(ctx).Transaction(fn)
}

// mapErr turns driver errors into tenancy sentinels: a missing row is
// ErrNotFound, a duplicate email ErrEmailTaken, other uniqueness violations
// ErrConflict, a dangling reference ErrNotFound.
func mapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return fmt.Errorf("sqlstore: %s: %w", op, tenancy.ErrNotFound)
	}
	for _, sentinel := range []error{tenancy.ErrNotFound, tenancy.ErrConflict, tenancy.ErrEmailTaken,
		tenancy.ErrLastOwner, tenancy.ErrInvitationInvalid, tenancy.ErrDataKeyChanged} {
		if errors.Is(err, sentinel) {
			return err
		}
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "23505":
			if pg.ConstraintName == "users_email_key" {
				return fmt.Errorf("sqlstore: %s: %w", op, tenancy.ErrEmailTaken)
			}
			return fmt.Errorf("sqlstore: %s: %w", op, tenancy.ErrConflict)
		case "23503":
			return fmt.Errorf("sqlstore: %s: referenced row missing: %w", op, tenancy.ErrNotFound)
		}
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "UNIQUE constraint failed: users.email"):
		return fmt.Errorf("sqlstore: %s: %w", op, tenancy.ErrEmailTaken)
	case strings.Contains(msg, "UNIQUE constraint failed"), strings.Contains(msg, "PRIMARY KEY constraint failed"):
		return fmt.Errorf("sqlstore: %s: %w", op, tenancy.ErrConflict)
	case strings.Contains(msg, "FOREIGN KEY constraint failed"):
		return fmt.Errorf("sqlstore: %s: referenced row missing: %w", op, tenancy.ErrNotFound)
	}
	return fmt.Errorf("sqlstore: %s: %w", op, err)
}

// affected1 turns a write that matched no row into miss.
func affected1(res *gorm.DB, miss error) error {
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return miss
	}
	return nil
}

package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/heddle-gw/heddle/credits"
)

// Store is a credits.Store over gorm.
type Store struct{ db *gorm.DB }

var _ credits.Store = (*Store)(nil)

// New returns a Store over db, which must be migrated.
func New(db *gorm.DB) *Store { return &Store{db: db} }

func (s *Store) conn(ctx context.Context) *gorm.DB { return s.db.WithContext(ctx) }

// mapErr keeps the credits sentinels, turns a missing row or a dangling
// reference into ErrNotFound and a taken unique name into ErrConflict, and
// wraps everything else in ErrUnavailable (money paths fail closed on it).
func mapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	for _, sentinel := range []error{credits.ErrNotFound, credits.ErrConflict, credits.ErrInsufficientCredits} {
		if errors.Is(err, sentinel) {
			return err
		}
	}
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return fmt.Errorf("credits/sqlstore: %s: %w", op, credits.ErrNotFound)
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "23505":
			return fmt.Errorf("credits/sqlstore: %s: %w", op, credits.ErrConflict)
		case "23503":
			return fmt.Errorf("credits/sqlstore: %s: referenced row missing: %w", op, credits.ErrNotFound)
		}
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "UNIQUE constraint failed"):
		return fmt.Errorf("credits/sqlstore: %s: %w", op, credits.ErrConflict)
	case strings.Contains(msg, "FOREIGN KEY constraint failed"):
		return fmt.Errorf("credits/sqlstore: %s: referenced row missing: %w", op, credits.ErrNotFound)
	}
	return fmt.Errorf("credits/sqlstore: %s: %w: %w", op, credits.ErrUnavailable, err)
}

type operatorRow struct {
	UserID    string    `gorm:"column:user_id;primaryKey"`
	CreatedBy string    `gorm:"column:created_by"`
	CreatedAt time.Time `gorm:"column:created_at;autoCreateTime:false"`
}

func (operatorRow) TableName() string { return "operators" }

// AddOperator makes userID an operator; an unknown user is ErrNotFound.
func (s *Store) AddOperator(ctx context.Context, userID, createdBy string, at time.Time) error {
	err := s.conn(ctx).Clauses(clause.OnConflict{DoNothing: true}).
		Create(&operatorRow{UserID: userID, CreatedBy: createdBy, CreatedAt: at}).Error
	return mapErr("add operator", err)
}

// IsOperator reports whether userID is an operator.
func (s *Store) IsOperator(ctx context.Context, userID string) (bool, error) {
	var n int64
	err := s.conn(ctx).Model(&operatorRow{}).Where("user_id = ?", userID).Count(&n).Error
	return n > 0, mapErr("is operator", err)
}

// Operators lists operators with their emails, oldest first.
func (s *Store) Operators(ctx context.Context) ([]credits.Operator, error) {
	var rows []struct {
		UserID, Email, CreatedBy string
		CreatedAt                time.Time
	}
	err := s.conn(ctx).Table("operators").Select("operators.user_id, users.email, operators.created_by, operators.created_at").
		Joins("JOIN users ON users.id = operators.user_id").Order("operators.created_at, operators.user_id").Scan(&rows).Error
	if err != nil {
		return nil, mapErr("operators", err)
	}
	out := make([]credits.Operator, len(rows))
	for i, r := range rows {
		out[i] = credits.Operator{UserID: r.UserID, Email: r.Email, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt.UTC()}
	}
	return out, nil
}

package sqlstore

import (
	"context"
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/heddle-gw/heddle/analytics"
)

// Store is the app-database analytics.Store and analytics.Reader. It is
// safe for concurrent use.
type Store struct {
	db *gorm.DB
}

var (
	_ analytics.Store  = (*Store)(nil)
	_ analytics.Reader = (*Store)(nil)
)

// insertChunk bounds the rows of one INSERT statement (SQLite allows 32766
// bound parameters; 30 columns x 500 rows stays well below).
const insertChunk = 500

// New returns a Store over db, whose schema the app migrations created.
func New(db *gorm.DB) *Store { return &Store{db: db} }

// InsertAttempts implements analytics.Store; rows whose event id is already
// stored are ignored.
func (s *Store) InsertAttempts(ctx context.Context, rows []analytics.Attempt) error {
	if len(rows) == 0 {
		return nil
	}
	out := make([]attemptRow, len(rows))
	for i, a := range rows {
		if err := a.Check(); err != nil {
			return fmt.Errorf("sqlstore: %w", err)
		}
		out[i] = fromAttempt(a)
	}
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).CreateInBatches(out, insertChunk).Error
	if err != nil {
		return fmt.Errorf("sqlstore: insert %d attempts: %w", len(rows), err)
	}
	return nil
}

// InsertRequests implements analytics.Store; rows whose event id is already
// stored are ignored.
func (s *Store) InsertRequests(ctx context.Context, rows []analytics.Request) error {
	if len(rows) == 0 {
		return nil
	}
	out := make([]requestRow, len(rows))
	for i, r := range rows {
		if err := r.Check(); err != nil {
			return fmt.Errorf("sqlstore: %w", err)
		}
		out[i] = fromRequest(r)
	}
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).CreateInBatches(out, insertChunk).Error
	if err != nil {
		return fmt.Errorf("sqlstore: insert %d requests: %w", len(rows), err)
	}
	return nil
}

package sqlstore

import (
	"context"
	"fmt"
	"io"
	"sync"

	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/analytics"
)

// Store is the app-database analytics.Store and analytics.Reader. It is
// safe for concurrent use.
type Store struct {
	db                 *gorm.DB
	attempts, requests *inserter // insert.go
	// The table rows a batch is converted to, kept for the next batch.
	attemptRows spareRows[attemptRow]
	requestRows spareRows[requestRow]
	writer      writeConn // insert.go: the one connection SQLite inserts run on
}

// spareRows keeps one slice of table rows between batches, so converting a
// batch allocates nothing once the slice has grown to a batch's size.
// Concurrent inserts (the Writer makes one at a time) take it in turn or
// allocate their own.
type spareRows[T any] struct {
	mu   sync.Mutex
	rows []T
}

// take returns n zero rows, reusing the spare slice when it is free and
// has room.
func (s *spareRows[T]) take(n int) []T {
	s.mu.Lock()
	rows := s.rows
	s.rows = nil
	s.mu.Unlock()
	if cap(rows) < n {
		return make([]T, n)
	}
	return rows[:n]
}

// give zeroes rows (so the spare holds no strings alive) and keeps them
// for the next take.
func (s *spareRows[T]) give(rows []T) {
	clear(rows)
	s.mu.Lock()
	if cap(rows) > cap(s.rows) {
		s.rows = rows
	}
	s.mu.Unlock()
}

var (
	_ io.Closer        = (*Store)(nil)
	_ analytics.Store  = (*Store)(nil)
	_ analytics.Reader = (*Store)(nil)
)

// New returns a Store over db, whose schema the app migrations created.
func New(db *gorm.DB) *Store {
	pg := db.Dialector.Name() == "postgres"
	return &Store{db: db, attempts: newInserter("attempts", attemptRow{}, pg), requests: newInserter("requests", requestRow{}, pg)}
}

// InsertAttempts implements analytics.Store; rows whose event id is already
// stored are ignored.
func (s *Store) InsertAttempts(ctx context.Context, rows []analytics.Attempt) error {
	if len(rows) == 0 {
		return nil
	}
	out := s.attemptRows.take(len(rows))
	defer s.attemptRows.give(out)
	for i := range rows {
		if err := rows[i].Check(); err != nil {
			return fmt.Errorf("sqlstore: %w", err)
		}
		out[i] = fromAttempt(rows[i])
	}
	if err := s.attempts.insert(ctx, s.db, &s.writer, out); err != nil {
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
	out := s.requestRows.take(len(rows))
	defer s.requestRows.give(out)
	for i := range rows {
		if err := rows[i].Check(); err != nil {
			return fmt.Errorf("sqlstore: %w", err)
		}
		out[i] = fromRequest(rows[i])
	}
	if err := s.requests.insert(ctx, s.db, &s.writer, out); err != nil {
		return fmt.Errorf("sqlstore: insert %d requests: %w", len(rows), err)
	}
	return nil
}

// Close releases the connection SQLite inserts hold (the database stays
// open: its owner closes it), without waiting for an insert in flight,
// which releases it as it returns. An insert after Close takes a
// connection for itself and gives it back.
func (s *Store) Close() error { return s.writer.close() }

package clickhouse

import (
	"context"
	"fmt"

	"github.com/heddle-gw/heddle/analytics"
)

// The INSERTs' column lists (see columns.go).
var (
	attemptColumns = columnList(attemptCols) + ", counts_request"
	requestColumns = columnList(requestCols)
)

// mark is an attempt's counts_request (migration 00015): 1 on the attempt
// that counts its request under its failure reason, 2 on its other
// attempts with that reason, 0 without a reason (and on rows inserted
// before the column existed).
func mark(a analytics.Attempt, counts bool) uint8 {
	switch {
	case a.Reason == "":
		return 0
	case counts:
		return 1
	}
	return 2
}

func u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// InsertAttempts implements analytics.Store with one PrepareBatch insert,
// appended column by column, of the rows whose event id is not stored yet
// (see dedup.go), each failed request's first attempt per reason marked
// (see marks).
func (s *Store) InsertAttempts(ctx context.Context, rows []analytics.Attempt) error {
	return s.insertAttempts(ctx, rows, true)
}

// InsertFreshAttempts implements analytics.FreshInserter: InsertAttempts
// without the query for stored event ids (repeats within rows are still
// dropped, and failed requests' first attempts still marked).
func (s *Store) InsertFreshAttempts(ctx context.Context, rows []analytics.Attempt) error {
	return s.insertAttempts(ctx, rows, false)
}

// InsertRequests implements analytics.Store with one PrepareBatch insert,
// appended column by column, of the rows whose event id is not stored yet
// (see dedup.go).
func (s *Store) InsertRequests(ctx context.Context, rows []analytics.Request) error {
	return s.insertRequests(ctx, rows, true)
}

// InsertFreshRequests implements analytics.FreshInserter: InsertRequests
// without the query for stored event ids (repeats within rows are still
// dropped).
func (s *Store) InsertFreshRequests(ctx context.Context, rows []analytics.Request) error {
	return s.insertRequests(ctx, rows, false)
}

// insertAttempts inserts rows, dropping those already stored when check is
// set (see unique).
func (s *Store) insertAttempts(ctx context.Context, rows []analytics.Attempt, check bool) error {
	if len(rows) == 0 {
		return nil
	}
	clean := make([]analytics.Attempt, len(rows))
	for i, a := range rows {
		if err := a.Check(); err != nil {
			return fmt.Errorf("clickhouse: %w", err)
		}
		clean[i] = a.Clean()
	}
	keep, err := s.unique(ctx, "attempts", attemptKeys(clean), check)
	if err != nil || len(keep) == 0 {
		return err
	}
	counts, err := s.marks(ctx, clean, keep)
	if err != nil {
		return err
	}
	b, err := s.conn.PrepareBatch(ctx, "INSERT INTO attempts ("+attemptColumns+")")
	if err != nil {
		return fmt.Errorf("clickhouse: prepare attempts: %w", err)
	}
	marks := make([]uint8, len(keep))
	for j, i := range keep {
		marks[j] = mark(clean[i], counts[i])
	}
	err = appendColumns(b, attemptCols, clean, keep)
	if err == nil {
		err = b.Column(len(attemptCols)).Append(marks)
	}
	if err != nil {
		_ = b.Abort()
		return fmt.Errorf("clickhouse: append attempts: %w", err)
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("clickhouse: insert %d attempts: %w", len(keep), err)
	}
	return nil
}

func (s *Store) insertRequests(ctx context.Context, rows []analytics.Request, check bool) error {
	if len(rows) == 0 {
		return nil
	}
	clean := make([]analytics.Request, len(rows))
	for i, r := range rows {
		if err := r.Check(); err != nil {
			return fmt.Errorf("clickhouse: %w", err)
		}
		clean[i] = r.Clean()
	}
	keep, err := s.unique(ctx, "requests", requestKeys(clean), check)
	if err != nil || len(keep) == 0 {
		return err
	}
	b, err := s.conn.PrepareBatch(ctx, "INSERT INTO requests ("+requestColumns+")")
	if err != nil {
		return fmt.Errorf("clickhouse: prepare requests: %w", err)
	}
	if err := appendColumns(b, requestCols, clean, keep); err != nil {
		_ = b.Abort()
		return fmt.Errorf("clickhouse: append requests: %w", err)
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("clickhouse: insert %d requests: %w", len(keep), err)
	}
	return nil
}

package clickhouse

import (
	"context"
	"fmt"

	"github.com/heddle-gw/heddle/analytics"
)

const attemptColumns = `event_id, time, time_ms, org_id, key_id, request_id, operation_id, purpose, policy_id,
bundle_id, bundle_revision, attempt_index, model, provider, upstream, credential_id, outcome, reason, status,
latency_ms, ttfb_ms, input_tokens, output_tokens, cache_read, cache_write, reasoning, cost_micros, stream,
counts_request`

const requestColumns = `event_id, time, time_ms, request_id, org_id, key_id, end_user, session, format,
requested_model, served_model, provider, route_kind, decision, cache_hit, stream, fallback, attempts,
input_tokens, output_tokens, cache_read, cache_write, reasoning, cost_micros, baseline_micros, savings_micros,
latency_ms, ttfb_ms, status, error_code, tags, baseline_model, candidates`

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

// InsertAttempts implements analytics.Store with one PrepareBatch insert of
// the rows whose event id is not stored yet (see dedup.go), each failed
// request's first attempt per reason marked (see marks).
func (s *Store) InsertAttempts(ctx context.Context, rows []analytics.Attempt) error {
	return s.insertAttempts(ctx, rows, true)
}

// InsertFreshAttempts implements analytics.FreshInserter: InsertAttempts
// without the query for stored event ids (repeats within rows are still
// dropped, and failed requests' first attempts still marked).
func (s *Store) InsertFreshAttempts(ctx context.Context, rows []analytics.Attempt) error {
	return s.insertAttempts(ctx, rows, false)
}

// InsertRequests implements analytics.Store with one PrepareBatch insert of
// the rows whose event id is not stored yet (see dedup.go).
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
	for _, i := range keep {
		a := clean[i]
		t := analytics.Millis(a.Time)
		if err := b.Append(a.EventID, t, t.UnixMilli(), a.OrgID, a.KeyID, a.RequestID, a.OperationID, a.Purpose,
			a.PolicyID, a.BundleID, a.BundleRevision, int32(a.AttemptIndex), a.Model, a.Provider, a.Upstream,
			a.CredentialID, a.Outcome, a.Reason, int32(a.Status), a.LatencyMs, a.TTFBMs, a.InputTokens,
			a.OutputTokens, a.CacheRead, a.CacheWrite, a.Reasoning, a.CostMicros, u8(a.Stream), mark(a, counts[i])); err != nil {
			_ = b.Abort()
			return fmt.Errorf("clickhouse: append attempt: %w", err)
		}
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
	for _, i := range keep {
		r := clean[i]
		t := analytics.Millis(r.Time)
		if err := b.Append(r.EventID, t, t.UnixMilli(), r.RequestID, r.OrgID, r.KeyID, r.User, r.Session, r.Format,
			r.RequestedModel, r.ServedModel, r.Provider, r.RouteKind, r.Decision, u8(r.CacheHit), u8(r.Stream),
			u8(r.Fallback), int32(r.Attempts), r.InputTokens, r.OutputTokens, r.CacheRead, r.CacheWrite, r.Reasoning,
			r.CostMicros, r.BaselineMicros, r.SavingsMicros, r.LatencyMs, r.TTFBMs, int32(r.Status), r.ErrorCode,
			r.Tags, r.BaselineModel, r.Candidates); err != nil {
			_ = b.Abort()
			return fmt.Errorf("clickhouse: append request: %w", err)
		}
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("clickhouse: insert %d requests: %w", len(keep), err)
	}
	return nil
}

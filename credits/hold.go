package credits

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Reserve holds micros of orgID's credit for requestID's call, or returns
// ErrInsufficientCredits (nothing may be sent upstream).
func (s *Service) Reserve(ctx context.Context, orgID, requestID string, micros int64) (*Reservation, error) {
	if micros <= 0 {
		micros = 1 // a call of unknown price still needs credit behind it
	}
	r := &Reservation{ID: newID(), OrgID: orgID, RequestID: requestID, AmountMicros: micros, CreatedAt: s.cfg.Now().UTC()}
	if err := s.store.Reserve(ctx, r); err != nil {
		return nil, err
	}
	return r, nil
}

// Settle debits a served call's cost at the plan's prices and releases the
// rest of its reservation. A settlement that fails leaves the hold in
// place (the credit stays held, never spent twice) and is logged.
func (s *Service) Settle(ctx context.Context, r *Reservation, u Use) error {
	e := &Entry{ID: newID(), OrgID: r.OrgID, Kind: KindDebit, AmountMicros: -max(u.Micros, 0), Actor: "gateway",
		Reason: "request on " + u.Model, RequestID: r.RequestID, Model: u.Model, KeyID: u.KeyID, CreatedAt: s.cfg.Now().UTC()}
	debitMicros := u.Micros
	if err := s.store.Settle(ctx, r.OrgID, r.ID, e); err != nil {
		s.cfg.Logger.ErrorContext(ctx, "credit settlement failed", "org_id", r.OrgID, "request_id", r.RequestID,
			"reservation_id", r.ID, "debit_micros", debitMicros, "err", err)
		return fmt.Errorf("credits: settle %s: %w", r.ID, err)
	}
	s.alertIfLow(ctx, r.OrgID, max(debitMicros, 0))
	return nil
}

// Use is what a served request is debited: its amount at the plan's
// prices, and the model and key it is reported under.
type Use struct {
	Micros       int64
	Model, KeyID string
}

// Usage is orgID's debits in [from, to) by model and key.
func (s *Service) Usage(ctx context.Context, orgID string, from, to time.Time) ([]UsageRow, error) {
	return s.store.Usage(ctx, orgID, from, to)
}

// Release ends a reservation without a debit (the call failed, was
// refused, or ran on the organisation's own credential).
func (s *Service) Release(ctx context.Context, r *Reservation) error {
	err := s.store.Release(ctx, r.OrgID, r.ID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		s.cfg.Logger.ErrorContext(ctx, "credit release failed", "org_id", r.OrgID, "reservation_id", r.ID, "err", err)
		return fmt.Errorf("credits: release %s: %w", r.ID, err)
	}
	return nil
}

// StaleAfter is how old a reservation must be before SettleStale ends it:
// longer than any call holds one.
const StaleAfter = time.Hour

// StaleReason is the ledger reason of a debit SettleStale took.
const StaleReason = "stale hold settled at its reservation: the call's outcome was never recorded"

// SettleStale ends the reservations older than StaleAfter (their replica
// stopped, or its settlement failed for good, before settling them) by
// debiting each its reserved amount, the most its call could cost: money
// fails closed, so a call whose outcome was lost is never left unpaid. The
// ledger keeps one debit per request, so a settlement of the call arriving
// later appends nothing; an operator who learns the call cost less (or
// never ran) refunds the difference. It returns how many holds it settled
// and the micros debited.
func (s *Service) SettleStale(ctx context.Context) (n int, micros int64, err error) {
	rs, err := s.store.StaleReservations(ctx, s.cfg.Now().Add(-StaleAfter))
	if err != nil {
		return 0, 0, err
	}
	for i := range rs {
		r := &rs[i]
		e := &Entry{ID: newID(), OrgID: r.OrgID, Kind: KindDebit, AmountMicros: -r.AmountMicros, Actor: "gateway",
			Reason: StaleReason, RequestID: r.RequestID, CreatedAt: s.cfg.Now().UTC()}
		if err := s.store.Settle(ctx, r.OrgID, r.ID, e); err != nil {
			return n, micros, err
		}
		n++
		micros += r.AmountMicros
		s.cfg.Logger.WarnContext(ctx, "stale credit reservation settled at its reservation", "org_id", r.OrgID, "request_id", r.RequestID,
			"reservation_id", r.ID, "amount_micros", r.AmountMicros)
		s.alertIfLow(ctx, r.OrgID, r.AmountMicros)
	}
	return n, micros, nil
}

// ChargeFee debits a plan's fee on a BYOK call (no reservation: the fee is
// a share of a cost the organisation's own credential already paid).
func (s *Service) ChargeFee(ctx context.Context, orgID, requestID string, u Use) error {
	micros := u.Micros
	if micros <= 0 {
		return nil
	}
	_, _, err := s.store.Append(ctx, &Entry{ID: newID(), OrgID: orgID, Kind: KindDebit, AmountMicros: -micros, Actor: "gateway",
		Reason: "BYOK fee on " + u.Model, RequestID: requestID, Model: u.Model, KeyID: u.KeyID, CreatedAt: s.cfg.Now().UTC()})
	if err != nil {
		s.cfg.Logger.ErrorContext(ctx, "BYOK fee debit failed", "org_id", orgID, "request_id", requestID, "err", err)
		return err
	}
	s.alertIfLow(ctx, orgID, micros)
	return nil
}

// alertIfLow alerts once per crossing: when the debit just taken moved
// orgID's balance from at or above the threshold to below it.
func (s *Service) alertIfLow(ctx context.Context, orgID string, debit int64) {
	if s.cfg.LowBalanceMicros <= 0 || debit <= 0 {
		return
	}
	a, err := s.store.Account(ctx, orgID)
	if err != nil || a.BalanceMicros >= s.cfg.LowBalanceMicros || a.BalanceMicros+debit < s.cfg.LowBalanceMicros {
		return
	}
	lb := LowBalance{OrgID: orgID, BalanceMicros: a.BalanceMicros, ThresholdMicro: s.cfg.LowBalanceMicros, At: s.cfg.Now().UTC()}
	s.cfg.Logger.WarnContext(ctx, "low credit balance", "org_id", orgID, "balance_micros", a.BalanceMicros,
		"threshold_micros", s.cfg.LowBalanceMicros)
	if s.cfg.Alerts != nil {
		s.cfg.Alerts.Notify(ctx, lb)
	}
}

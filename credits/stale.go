package credits

import (
	"context"
	"strings"
)

// StaleDebit is a debit SettleStale took (a hold charged its whole
// reservation because its call's outcome was never recorded), with what an
// operator needs to judge and refund it.
type StaleDebit struct {
	// Debit is the ledger entry (AmountMicros negative).
	Debit Entry
	// OrgName is the debited organisation's name.
	OrgName string
	// Refund is the refund recorded against it (reference
	// StaleRefundReference(Debit.ID)), nil while there is none.
	Refund *Entry
}

// StaleQuery selects stale debits, newest first.
type StaleQuery struct {
	// ID, when set, selects that one debit (none if it is not a stale
	// debit).
	ID string
	// Before is a cursor: an entry id; "" starts at the newest.
	Before string
	// Limit is the page size (0: DefaultPage).
	Limit int
}

// StaleRefundReference is the reference of the refund of stale debit
// debitID: one refund per stale debit, so a repeated refund adds nothing.
func StaleRefundReference(debitID string) string { return "stale-refund:" + debitID }

// StaleDebits lists every organisation's stale debits (operators only:
// the caller checked the role), newest first.
func (s *Service) StaleDebits(ctx context.Context, q StaleQuery) ([]StaleDebit, error) {
	if q.Limit <= 0 || q.Limit > 500 {
		q.Limit = DefaultPage
	}
	return s.store.StaleDebits(ctx, q)
}

// RefundStale refunds amountMicros (1 to the debited amount; 0: all of it)
// of stale debit debitID, as a refund entry naming the debit's request and
// the reference StaleRefundReference(debitID). It returns the refund and
// whether it was added now (false: the debit was already refunded, the
// stored refund returned). An id that is no stale debit is ErrNotFound.
func (s *Service) RefundStale(ctx context.Context, debitID string, amountMicros int64, actor, reason string) (*Entry, bool, error) {
	ds, err := s.store.StaleDebits(ctx, StaleQuery{ID: debitID, Limit: 1})
	if err != nil {
		return nil, false, err
	}
	if len(ds) == 0 {
		return nil, false, ErrNotFound
	}
	d := ds[0].Debit
	if amountMicros == 0 {
		amountMicros = -d.AmountMicros
	}
	if amountMicros < 0 || amountMicros > -d.AmountMicros {
		return nil, false, invalid("amount_micros", "must be between 1 and the debited amount")
	}
	if reason = strings.TrimSpace(reason); reason == "" {
		reason = "refund of a stale hold's debit"
	}
	return s.Credit(ctx, CreditInput{OrgID: d.OrgID, Kind: KindRefund, AmountMicros: amountMicros, Actor: actor, Reason: reason,
		Reference: StaleRefundReference(d.ID), RequestID: d.RequestID})
}

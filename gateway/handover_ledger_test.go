package gateway

import (
	"context"
	"testing"

	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/llm"
)

// ledgerCredits is fakeCredits that keeps, as the ledger does
// (credit_ledger_debit_key), one debit per organisation and request id: a
// later settlement or fee of the same request adds nothing.
type ledgerCredits struct {
	fakeCredits
	debits map[string]int64 // by org and request id
}

func (l *ledgerCredits) debit(org, req string, micros int64) {
	if _, ok := l.debits[org+"|"+req]; !ok && micros > 0 {
		l.debits[org+"|"+req] = micros
	}
}

func (l *ledgerCredits) Settle(ctx context.Context, r *credits.Reservation, u credits.Use) error {
	l.debit(r.OrgID, r.RequestID, u.Micros)
	return l.fakeCredits.Settle(ctx, r, u)
}

func (l *ledgerCredits) ChargeFee(ctx context.Context, org, req string, u credits.Use) error {
	l.debit(org, req, u.Micros)
	return l.fakeCredits.ChargeFee(ctx, org, req, u)
}

// TestHandoverSummaryFeeKeepsTheTurnsDebit: the ledger takes one debit per
// (organisation, request id), so the handover summary's BYOK fee must not
// take the turn's request id: with it, the turn's own fee (or settlement)
// was silently dropped as a duplicate.
func TestHandoverSummaryFeeKeepsTheTurnsDebit(t *testing.T) {
	lc := &ledgerCredits{fakeCredits: fakeCredits{funding: handoverFunding, balance: 1 << 40}, debits: map[string]int64{}}
	s, ex := serveHandoverTurn(t, lc, nil)
	pricer := Pricer{Catalog: s.d.Catalog}
	sumFee := handoverPlan.Fee(pricer.CostMicros(ex.summaries[0], llm.Usage{Input: 200_000, Output: 2_000}))
	var debits []int64
	for _, micros := range lc.debits {
		debits = append(debits, micros)
	}
	if len(debits) != 2 || (debits[0] != sumFee && debits[1] != sumFee) || sumFee <= 0 {
		t.Fatalf("fee debits %v, want two: the summary's %d and the turn's", debits, sumFee)
	}
}

package credits

import (
	"context"
	"fmt"
	"time"
)

// Statement is one organisation's monthly statement: the opening balance,
// line items (each credit entry, and the debits of each UTC day as one
// usage line), totals by kind and the closing balance. Opening plus the
// sum of the lines is Closing.
type Statement struct {
	OrgID   string
	From    time.Time // the first instant of the month (UTC)
	To      time.Time // the first instant of the next month
	Opening int64
	Closing int64
	Lines   []StatementLine
	Totals  map[Kind]int64
}

// StatementLine is one line of a statement.
type StatementLine struct {
	Date         time.Time // the entry's time; for a usage line, its day
	Kind         Kind
	Description  string
	Requests     int // usage lines: how many requests were debited
	AmountMicros int64
}

// ParseMonth reads "2006-01" as the first instant of that UTC month.
func ParseMonth(s string) (time.Time, error) {
	t, err := time.Parse("2006-01", s)
	if err != nil {
		return time.Time{}, invalid("month", "must be YYYY-MM")
	}
	return t.UTC(), nil
}

// statementPage is how many entries a statement reads at a time.
const statementPage = 1000

// Statement builds orgID's statement for the month starting at month.
func (s *Service) Statement(ctx context.Context, orgID string, month time.Time) (*Statement, error) {
	from := time.Date(month.Year(), month.Month(), 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 1, 0)
	opening, err := s.store.BalanceAt(ctx, orgID, from)
	if err != nil {
		return nil, err
	}
	st := &Statement{OrgID: orgID, From: from, To: to, Opening: opening, Closing: opening, Totals: map[Kind]int64{}}
	var usage *StatementLine
	flush := func() {
		if usage != nil {
			usage.Description = fmt.Sprintf("Usage on platform credentials and fees (%d requests)", usage.Requests)
			st.Lines = append(st.Lines, *usage)
			usage = nil
		}
	}
	cursor := ""
	for {
		es, err := s.store.Entries(ctx, orgID, EntryQuery{From: from, To: to, Before: cursor, Limit: statementPage, Oldest: true})
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			st.Closing += e.AmountMicros
			st.Totals[e.Kind] += e.AmountMicros
			if e.Kind == KindDebit {
				day := time.Date(e.CreatedAt.Year(), e.CreatedAt.Month(), e.CreatedAt.Day(), 0, 0, 0, 0, time.UTC)
				if usage != nil && !usage.Date.Equal(day) {
					flush()
				}
				if usage == nil {
					usage = &StatementLine{Date: day, Kind: KindDebit}
				}
				usage.Requests++
				usage.AmountMicros += e.AmountMicros
				continue
			}
			flush()
			desc := e.Reason
			if desc == "" {
				desc = string(e.Kind)
			}
			st.Lines = append(st.Lines, StatementLine{Date: e.CreatedAt, Kind: e.Kind, Description: desc, AmountMicros: e.AmountMicros})
		}
		if len(es) < statementPage {
			break
		}
		cursor = es[len(es)-1].ID
	}
	flush()
	return st, nil
}

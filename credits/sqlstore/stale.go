package sqlstore

import (
	"context"
	"strings"

	"github.com/heddle-gw/heddle/credits"
)

// staleDebit selects the debits of credits.StaleReason: the predicate of
// migration 01900's partial index, inlined as a literal (with a bound
// parameter SQLite would not use the index).
var staleDebit = "kind = 'debit' AND reason = '" + strings.ReplaceAll(credits.StaleReason, "'", "''") + "'"

// StaleDebits lists stale debits newest first, with their organisations'
// names and refunds.
func (s *Store) StaleDebits(ctx context.Context, q credits.StaleQuery) ([]credits.StaleDebit, error) {
	db := s.conn(ctx).Where(staleDebit)
	if q.ID != "" {
		db = db.Where("id = ?", q.ID)
	}
	if q.Before != "" {
		db = db.Where("id < ?", q.Before)
	}
	var rows []entryRow
	if err := db.Order("id DESC").Limit(q.Limit).Find(&rows).Error; err != nil {
		return nil, mapErr("stale debits", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	orgIDs, refs := make([]string, 0, len(rows)), make([]string, 0, len(rows))
	for _, r := range rows {
		orgIDs, refs = append(orgIDs, r.OrgID), append(refs, credits.StaleRefundReference(r.ID))
	}
	var orgs []struct{ ID, Name string }
	if err := s.conn(ctx).Table("orgs").Select("id, name").Where("id IN ?", orgIDs).Scan(&orgs).Error; err != nil {
		return nil, mapErr("stale debits: orgs", err)
	}
	names := make(map[string]string, len(orgs))
	for _, o := range orgs {
		names[o.ID] = o.Name
	}
	var refunds []entryRow
	if err := s.conn(ctx).Where("org_id IN ? AND reference IN ? AND kind = ?", orgIDs, refs, string(credits.KindRefund)).
		Find(&refunds).Error; err != nil {
		return nil, mapErr("stale debits: refunds", err)
	}
	byRef := make(map[string]credits.Entry, len(refunds))
	for i := range refunds {
		byRef[refunds[i].OrgID+"\x00"+refunds[i].Reference] = refunds[i].entry()
	}
	out := make([]credits.StaleDebit, len(rows))
	for i := range rows {
		out[i] = credits.StaleDebit{Debit: rows[i].entry(), OrgName: names[rows[i].OrgID]}
		if r, ok := byRef[rows[i].OrgID+"\x00"+credits.StaleRefundReference(rows[i].ID)]; ok {
			out[i].Refund = &r
		}
	}
	return out, nil
}

package sqlstore

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/heddle-gw/heddle/credits"
)

type entryRow struct {
	ID           string    `gorm:"column:id;primaryKey"`
	OrgID        string    `gorm:"column:org_id"`
	Kind         string    `gorm:"column:kind"`
	AmountMicros int64     `gorm:"column:amount_micros"`
	Actor        string    `gorm:"column:actor"`
	Reason       string    `gorm:"column:reason"`
	RequestID    string    `gorm:"column:request_id"`
	Model        string    `gorm:"column:model"`
	KeyID        string    `gorm:"column:key_id"`
	Reference    string    `gorm:"column:reference"`
	CreatedAt    time.Time `gorm:"column:created_at;autoCreateTime:false"`
}

func (entryRow) TableName() string { return "credit_ledger" }

func (r *entryRow) entry() credits.Entry {
	return credits.Entry{ID: r.ID, OrgID: r.OrgID, Kind: credits.Kind(r.Kind), AmountMicros: r.AmountMicros, Actor: r.Actor,
		Reason: r.Reason, RequestID: r.RequestID, Model: r.Model, KeyID: r.KeyID, Reference: r.Reference, CreatedAt: r.CreatedAt.UTC()}
}

func rowOf(e *credits.Entry) entryRow {
	return entryRow{ID: e.ID, OrgID: e.OrgID, Kind: string(e.Kind), AmountMicros: e.AmountMicros, Actor: e.Actor,
		Reason: e.Reason, RequestID: e.RequestID, Model: e.Model, KeyID: e.KeyID, Reference: e.Reference, CreatedAt: e.CreatedAt.UTC()}
}

type accountRow struct {
	OrgID          string    `gorm:"column:org_id;primaryKey"`
	BalanceMicros  int64     `gorm:"column:balance_micros"`
	ReservedMicros int64     `gorm:"column:reserved_micros"`
	UpdatedAt      time.Time `gorm:"column:updated_at;autoUpdateTime:false"`
}

func (accountRow) TableName() string { return "credit_accounts" }

type reservationRow struct {
	ID           string    `gorm:"column:id;primaryKey"`
	OrgID        string    `gorm:"column:org_id"`
	RequestID    string    `gorm:"column:request_id"`
	AmountMicros int64     `gorm:"column:amount_micros"`
	CreatedAt    time.Time `gorm:"column:created_at;autoCreateTime:false"`
}

func (reservationRow) TableName() string { return "credit_reservations" }

// ensureAccount creates orgID's account row when it has none.
func ensureAccount(tx *gorm.DB, orgID string, at time.Time) error {
	return tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&accountRow{OrgID: orgID, UpdatedAt: at}).Error
}

// insertEntry appends e unless its reference or debit request id is taken;
// it moves the balance when it added the entry.
func insertEntry(tx *gorm.DB, e *credits.Entry) (bool, error) {
	row := rowOf(e)
	res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&row)
	if res.Error != nil || res.RowsAffected == 0 {
		return false, res.Error
	}
	err := tx.Model(&accountRow{}).Where("org_id = ?", e.OrgID).Updates(map[string]any{
		"balance_micros": gorm.Expr("balance_micros + ?", e.AmountMicros), "updated_at": e.CreatedAt.UTC()}).Error
	return true, err
}

// Append adds e (idempotent by reference, and by request id for debits).
func (s *Store) Append(ctx context.Context, e *credits.Entry) (*credits.Entry, bool, error) {
	added := false
	err := s.conn(ctx).Transaction(func(tx *gorm.DB) error {
		if err := ensureAccount(tx, e.OrgID, e.CreatedAt); err != nil {
			return err
		}
		var err error
		added, err = insertEntry(tx, e)
		return err
	})
	if err != nil {
		return nil, false, mapErr("append", err)
	}
	if added {
		return e, true, nil
	}
	q := s.conn(ctx).Where("org_id = ?", e.OrgID)
	if e.Reference != "" {
		q = q.Where("reference = ?", e.Reference)
	} else {
		q = q.Where("request_id = ? AND kind = ?", e.RequestID, string(credits.KindDebit))
	}
	var row entryRow
	if err := q.Take(&row).Error; err != nil {
		return nil, false, mapErr("append: read existing", err)
	}
	stored := row.entry()
	return &stored, false, nil
}

// Reserve holds r when the balance less what is reserved covers it.
func (s *Store) Reserve(ctx context.Context, r *credits.Reservation) error {
	err := s.conn(ctx).Transaction(func(tx *gorm.DB) error {
		if err := ensureAccount(tx, r.OrgID, r.CreatedAt); err != nil {
			return err
		}
		res := tx.Model(&accountRow{}).
			Where("org_id = ? AND balance_micros - reserved_micros >= ?", r.OrgID, r.AmountMicros).
			Updates(map[string]any{"reserved_micros": gorm.Expr("reserved_micros + ?", r.AmountMicros), "updated_at": r.CreatedAt.UTC()})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return credits.ErrInsufficientCredits
		}
		return tx.Create(&reservationRow{ID: r.ID, OrgID: r.OrgID, RequestID: r.RequestID, AmountMicros: r.AmountMicros,
			CreatedAt: r.CreatedAt.UTC()}).Error
	})
	return mapErr("reserve", err)
}

// end deletes reservation id of orgID and returns its amount; a reservation
// already ended is ErrNotFound.
func end(tx *gorm.DB, orgID, id string) (int64, error) {
	var row reservationRow
	if err := tx.Where("id = ? AND org_id = ?", id, orgID).Take(&row).Error; err != nil {
		return 0, err
	}
	res := tx.Where("id = ? AND org_id = ?", id, orgID).Delete(&reservationRow{})
	if res.Error != nil {
		return 0, res.Error
	}
	if res.RowsAffected == 0 {
		return 0, credits.ErrNotFound // another settlement ended it first
	}
	return row.AmountMicros, nil
}

// Settle ends reservation id with debit.
func (s *Store) Settle(ctx context.Context, orgID, id string, debit *credits.Entry) error {
	err := s.conn(ctx).Transaction(func(tx *gorm.DB) error {
		held, err := end(tx, orgID, id)
		if errors.Is(err, gorm.ErrRecordNotFound) || errors.Is(err, credits.ErrNotFound) {
			held = 0 // released as stale meanwhile: the debit is still owed
		} else if err != nil {
			return err
		}
		if err := tx.Model(&accountRow{}).Where("org_id = ?", orgID).Updates(map[string]any{
			"reserved_micros": gorm.Expr("reserved_micros - ?", held), "updated_at": debit.CreatedAt.UTC()}).Error; err != nil {
			return err
		}
		if debit.AmountMicros == 0 {
			return nil
		}
		_, err = insertEntry(tx, debit)
		return err
	})
	return mapErr("settle", err)
}

// Release ends reservation id without a debit.
func (s *Store) Release(ctx context.Context, orgID, id string) error {
	err := s.conn(ctx).Transaction(func(tx *gorm.DB) error {
		held, err := end(tx, orgID, id)
		if err != nil {
			return err
		}
		return tx.Model(&accountRow{}).Where("org_id = ?", orgID).Updates(map[string]any{
			"reserved_micros": gorm.Expr("reserved_micros - ?", held), "updated_at": time.Now().UTC()}).Error
	})
	return mapErr("release", err)
}

// Account returns orgID's totals.
func (s *Store) Account(ctx context.Context, orgID string) (credits.Account, error) {
	var row accountRow
	err := s.conn(ctx).Where("org_id = ?", orgID).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return credits.Account{OrgID: orgID}, nil
	}
	if err != nil {
		return credits.Account{}, mapErr("account", err)
	}
	return credits.Account{OrgID: orgID, BalanceMicros: row.BalanceMicros, ReservedMicros: row.ReservedMicros}, nil
}

// Entries pages orgID's ledger by id (UUIDv7, so by time).
func (s *Store) Entries(ctx context.Context, orgID string, q credits.EntryQuery) ([]credits.Entry, error) {
	db := s.conn(ctx).Where("org_id = ?", orgID)
	if !q.From.IsZero() {
		db = db.Where("created_at >= ?", q.From.UTC())
	}
	if !q.To.IsZero() {
		db = db.Where("created_at < ?", q.To.UTC())
	}
	order := "id DESC"
	if q.Oldest {
		order = "id"
		if q.Before != "" {
			db = db.Where("id > ?", q.Before)
		}
	} else if q.Before != "" {
		db = db.Where("id < ?", q.Before)
	}
	var rows []entryRow
	if err := db.Order(order).Limit(q.Limit).Find(&rows).Error; err != nil {
		return nil, mapErr("entries", err)
	}
	out := make([]credits.Entry, len(rows))
	for i := range rows {
		out[i] = rows[i].entry()
	}
	return out, nil
}

// StaleReservations lists reservations created before t, oldest first.
func (s *Store) StaleReservations(ctx context.Context, before time.Time) ([]credits.Reservation, error) {
	var rows []reservationRow
	if err := s.conn(ctx).Where("created_at < ?", before.UTC()).Order("created_at, id").Limit(1000).Find(&rows).Error; err != nil {
		return nil, mapErr("stale reservations", err)
	}
	out := make([]credits.Reservation, len(rows))
	for i, r := range rows {
		out[i] = credits.Reservation{ID: r.ID, OrgID: r.OrgID, RequestID: r.RequestID, AmountMicros: r.AmountMicros, CreatedAt: r.CreatedAt.UTC()}
	}
	return out, nil
}

// Reservations lists orgID's held reservations, oldest first.
func (s *Store) Reservations(ctx context.Context, orgID string) ([]credits.Reservation, error) {
	var rows []reservationRow
	if err := s.conn(ctx).Where("org_id = ?", orgID).Order("created_at, id").Find(&rows).Error; err != nil {
		return nil, mapErr("reservations", err)
	}
	out := make([]credits.Reservation, len(rows))
	for i, r := range rows {
		out[i] = credits.Reservation{ID: r.ID, OrgID: r.OrgID, RequestID: r.RequestID, AmountMicros: r.AmountMicros, CreatedAt: r.CreatedAt.UTC()}
	}
	return out, nil
}

// BalanceAt sums orgID's entries created before t.
func (s *Store) BalanceAt(ctx context.Context, orgID string, t time.Time) (int64, error) {
	var sum struct{ Total int64 }
	err := s.conn(ctx).Model(&entryRow{}).Select("COALESCE(SUM(amount_micros), 0) AS total").
		Where("org_id = ? AND created_at < ?", orgID, t.UTC()).Scan(&sum).Error
	return sum.Total, mapErr("balance at", err)
}

// Usage groups orgID's debits in [from, to) by model and key.
func (s *Store) Usage(ctx context.Context, orgID string, from, to time.Time) ([]credits.UsageRow, error) {
	var rows []struct {
		Model, KeyID string
		Requests     int
		Total        int64
	}
	err := s.conn(ctx).Model(&entryRow{}).Select("model, key_id, COUNT(*) AS requests, -SUM(amount_micros) AS total").
		Where("org_id = ? AND kind = ? AND created_at >= ? AND created_at < ?", orgID, string(credits.KindDebit), from.UTC(), to.UTC()).
		Group("model, key_id").Order("total DESC, model, key_id").Scan(&rows).Error
	if err != nil {
		return nil, mapErr("usage", err)
	}
	out := make([]credits.UsageRow, len(rows))
	for i, r := range rows {
		out[i] = credits.UsageRow{Model: r.Model, KeyID: r.KeyID, Requests: r.Requests, Micros: r.Total}
	}
	return out, nil
}

package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/billing"
)

// Store is a billing.SpendStore over the budget_spend table (or
// rate_counters, see NewRateCounters) and a billing.OrgBudgetStore over
// org_budgets (orgbudgets.go). Safe for concurrent use, by any number of
// replicas sharing the database.
type Store struct {
	db     *gorm.DB
	table  string
	upsert string
}

var _ billing.SpendStore = (*Store)(nil)

// New returns a Store over db, which must be migrated.
func New(db *gorm.DB) *Store { return newStore(db, "budget_spend") }

// NewRateCounters returns a counter store over the rate_counters table (key
// rate limits shared by replicas without Redis): the same counters per
// scope and period, for one-minute windows, and Sweep for past ones.
func NewRateCounters(db *gorm.DB) *Store { return newStore(db, "rate_counters") }

// newStore builds the upsert that adds to a counter in one statement, so
// concurrent writers on any replica never lose an increment.
func newStore(db *gorm.DB, table string) *Store {
	return &Store{db: db, table: table, upsert: "INSERT INTO " + table + ` (scope, period_start, micros) VALUES (?, ?, ?)
ON CONFLICT (scope, period_start) DO UPDATE SET micros = ` + table + ".micros + excluded.micros"}
}

// row is one budget_spend row.
type row struct {
	Scope       string `gorm:"column:scope;primaryKey"`
	PeriodStart int64  `gorm:"column:period_start;primaryKey"`
	Micros      int64  `gorm:"column:micros"`
}

func (row) TableName() string { return "budget_spend" }

// Spent returns the micro-dollars recorded for scope in the period starting
// at periodStart; 0 when nothing was recorded.
func (s *Store) Spent(ctx context.Context, scope string, periodStart time.Time) (int64, error) {
	var r row
	err := s.db.WithContext(ctx).Table(s.table).Where("scope = ? AND period_start = ?", scope, periodStart.UnixMilli()).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("sqlstore: spent: %w", err)
	}
	return r.Micros, nil
}

// Add atomically adds micros to scope's spending in the period starting at
// periodStart.
func (s *Store) Add(ctx context.Context, scope string, periodStart time.Time, micros int64) error {
	if err := s.db.WithContext(ctx).Exec(s.upsert, scope, periodStart.UnixMilli(), micros).Error; err != nil {
		return fmt.Errorf("sqlstore: add spend: %w", err)
	}
	return nil
}

var (
	_ billing.SpentManyReader = (*Store)(nil)
	_ billing.ManyAdder       = (*Store)(nil)
)

// addManyChunk bounds the rows of one AddMany statement (3 parameters
// each, well under SQLite's and Postgres's limits).
const addManyChunk = 200

// AddMany adds to many counters with one upsert statement per 200 of them
// (each statement atomic), in the order given; it returns how many were
// written before an error.
func (s *Store) AddMany(ctx context.Context, adds []billing.SpendAdd) (int, error) {
	done := 0
	for done < len(adds) {
		chunk := adds[done:min(len(adds), done+addManyChunk)]
		var q strings.Builder
		q.WriteString("INSERT INTO " + s.table + " (scope, period_start, micros) VALUES ")
		args := make([]any, 0, 3*len(chunk))
		for i, a := range chunk {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?, ?)")
			args = append(args, a.Scope, a.PeriodStart.UnixMilli(), a.Micros)
		}
		q.WriteString(" ON CONFLICT (scope, period_start) DO UPDATE SET micros = " + s.table + ".micros + excluded.micros")
		if err := s.db.WithContext(ctx).Exec(q.String(), args...).Error; err != nil {
			return done, fmt.Errorf("sqlstore: add %d spend counters: %w", len(chunk), err)
		}
		done += len(chunk)
	}
	return done, nil
}

// spentManyChunk bounds the scopes of one SpentMany query.
const spentManyChunk = 500

// SpentMany returns the spending of scopes in the period starting at
// periodStart, in one query per 500 scopes; a scope never written is
// absent (0).
func (s *Store) SpentMany(ctx context.Context, periodStart time.Time, scopes []string) (map[string]int64, error) {
	out := make(map[string]int64, len(scopes))
	for len(scopes) > 0 {
		n := min(len(scopes), spentManyChunk)
		var rows []row
		err := s.db.WithContext(ctx).Table(s.table).Where("period_start = ? AND scope IN ?", periodStart.UnixMilli(), scopes[:n]).Find(&rows).Error
		if err != nil {
			return nil, fmt.Errorf("sqlstore: spent many: %w", err)
		}
		for _, r := range rows {
			out[r.Scope] = r.Micros
		}
		scopes = scopes[n:]
	}
	return out, nil
}

// Sweep deletes the counters of periods that started before before.
func (s *Store) Sweep(ctx context.Context, before time.Time) error {
	if err := s.db.WithContext(ctx).Exec("DELETE FROM "+s.table+" WHERE period_start < ?", before.UnixMilli()).Error; err != nil {
		return fmt.Errorf("sqlstore: sweep %s: %w", s.table, err)
	}
	return nil
}

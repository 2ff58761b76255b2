package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

var _ analytics.HealthReader = (*Store)(nil)

// answered are the attempts that reached the binding and ended there.
const answered = "outcome IN ('served', 'failed')"

type healthRow struct {
	Provider string `gorm:"column:provider"`
	Model    string `gorm:"column:model"`
	Attempts int64  `gorm:"column:attempts"`
	Served   int64  `gorm:"column:served"`
	Failed   int64  `gorm:"column:failed"`
	Skipped  int64  `gorm:"column:skipped"`
	LastFail int64  `gorm:"column:last_fail"`
}

// Health implements analytics.HealthReader.
func (s *Store) Health(ctx context.Context, orgID string, from, to time.Time) ([]analytics.BindingHealth, error) {
	q, err := s.inScope(ctx, &attemptRow{}, orgID, from, to)
	if err != nil {
		return nil, err
	}
	count := func(outcome string) string { return sumOf("CASE WHEN outcome = '" + outcome + "' THEN 1 ELSE 0 END") }
	var rows []healthRow
	err = q().Select("provider, model, COUNT(*) AS attempts, " + count("served") + " AS served, " +
		count("failed") + " AS failed, " + count("skipped") + " AS skipped, " +
		"CAST(COALESCE(MAX(CASE WHEN outcome = 'failed' THEN time_ms END), 0) AS BIGINT) AS last_fail").
		Group("provider, model").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: health: %w", err)
	}
	out := make([]analytics.BindingHealth, 0, len(rows))
	for _, r := range rows {
		h := analytics.BindingHealth{Provider: r.Provider, Model: r.Model, Attempts: r.Attempts, Served: r.Served,
			Failed: r.Failed, Skipped: r.Skipped}
		if r.LastFail > 0 {
			h.LastFailure = time.UnixMilli(r.LastFail).UTC()
		}
		lat, err := percentiles(q().Where("provider = ? AND model = ? AND "+answered, r.Provider, r.Model), "latency_ms",
			r.Served+r.Failed)
		if err != nil {
			return nil, err
		}
		h.LatencyP50, h.LatencyP95, h.LatencyP99 = lat[0], lat[1], lat[2]
		h.Rate()
		out = append(out, h)
	}
	analytics.SortHealth(out)
	return out, nil
}

package clickhouse

import (
	"context"
	"fmt"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

var _ analytics.HealthReader = (*Store)(nil)

// Health implements analytics.HealthReader. Percentiles use quantilesExact,
// as Summary does.
func (s *Store) Health(ctx context.Context, orgID string, from, to time.Time) ([]analytics.BindingHealth, error) {
	w, err := scope(orgID, from, to)
	if err != nil {
		return nil, err
	}
	q := analytics.Quantiles
	levels := fmt.Sprintf("%g, %g, %g", q[0], q[1], q[2])
	rows, err := s.conn.Query(s.readCtx(ctx), "SELECT provider, model, count(), countIf(outcome = 'served'),"+
		" countIf(outcome = 'failed'), countIf(outcome = 'skipped'),"+
		" quantilesExactIf("+levels+")(latency_ms, outcome IN ('served', 'failed')),"+
		" maxIf(time_ms, outcome = 'failed')"+
		" FROM attempts"+w.String()+" GROUP BY provider, model", w.args...)
	if err != nil {
		return nil, readErr("health", err)
	}
	defer rows.Close()
	var out []analytics.BindingHealth
	for rows.Next() {
		var (
			h                          analytics.BindingHealth
			n, served, failed, skipped uint64
			lat                        []float64
			lastFail                   int64
		)
		if err := rows.Scan(&h.Provider, &h.Model, &n, &served, &failed, &skipped, &lat, &lastFail); err != nil {
			return nil, fmt.Errorf("clickhouse: scan health: %w", err)
		}
		h.Attempts, h.Served, h.Failed, h.Skipped = int64(n), int64(served), int64(failed), int64(skipped)
		if served+failed > 0 && len(lat) == 3 {
			h.LatencyP50, h.LatencyP95, h.LatencyP99 = lat[0], lat[1], lat[2]
		}
		if lastFail > 0 {
			h.LastFailure = time.UnixMilli(lastFail).UTC()
		}
		h.Rate()
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, readErr("read health", err)
	}
	analytics.SortHealth(out)
	return out, nil
}

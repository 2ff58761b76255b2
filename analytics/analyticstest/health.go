package analyticstest

import (
	"context"
	"slices"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

var _ analytics.HealthReader = (*Store)(nil)

// Health implements analytics.HealthReader.
func (s *Store) Health(_ context.Context, orgID string, from, to time.Time) ([]analytics.BindingHealth, error) {
	if err := analytics.CheckOrg(orgID); err != nil {
		return nil, err
	}
	fromMs, toMs, err := analytics.RangeMillis(from, to)
	if err != nil {
		return nil, err
	}
	orgID = analytics.CleanText(orgID)
	byKey := map[[2]string]*analytics.BindingHealth{}
	lat := map[[2]string][]float64{}
	for _, a := range s.Attempts() {
		ms := a.Time.UnixMilli()
		if a.OrgID != orgID || ms < fromMs || ms >= toMs {
			continue
		}
		k := [2]string{a.Provider, a.Model}
		h := byKey[k]
		if h == nil {
			h = &analytics.BindingHealth{Provider: a.Provider, Model: a.Model}
			byKey[k] = h
		}
		h.Attempts++
		switch a.Outcome {
		case "served":
			h.Served++
			lat[k] = append(lat[k], a.LatencyMs)
		case "failed":
			h.Failed++
			lat[k] = append(lat[k], a.LatencyMs)
			if a.Time.After(h.LastFailure) {
				h.LastFailure = a.Time
			}
		case "skipped":
			h.Skipped++
		}
	}
	out := make([]analytics.BindingHealth, 0, len(byKey))
	for k, h := range byKey {
		l := lat[k]
		slices.Sort(l)
		h.LatencyP50 = analytics.Quantile(l, analytics.Quantiles[0])
		h.LatencyP95 = analytics.Quantile(l, analytics.Quantiles[1])
		h.LatencyP99 = analytics.Quantile(l, analytics.Quantiles[2])
		h.Rate()
		out = append(out, *h)
	}
	analytics.SortHealth(out)
	return out, nil
}

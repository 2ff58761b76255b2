package analytics

import (
	"context"
	"sort"
	"time"
)

// BindingHealth is one provider binding's attempts over a period: how many
// were made and how they ended, the success rate (served over served and
// failed; skipped and aborted attempts are not the binding's answers), the
// latency percentiles of its answers (served and failed attempts, see
// Quantile) and the time of its last failure (zero for none).
type BindingHealth struct {
	Provider    string
	Model       string
	Attempts    int64
	Served      int64
	Failed      int64
	Skipped     int64
	SuccessRate float64
	LatencyP50  float64
	LatencyP95  float64
	LatencyP99  float64
	LastFailure time.Time
}

// HealthReader reports on the provider bindings an organisation's attempts
// went to. Stores that implement Reader implement it too.
type HealthReader interface {
	// Health groups the organisation's attempts in [from, to) by provider
	// and model, ordered by provider, then model. ErrOrgRequired for an
	// empty orgID, ErrInvalidRange for a bad range.
	Health(ctx context.Context, orgID string, from, to time.Time) ([]BindingHealth, error)
}

// Rate fills SuccessRate from the counts.
func (h *BindingHealth) Rate() {
	h.SuccessRate = 0
	if n := h.Served + h.Failed; n > 0 {
		h.SuccessRate = float64(h.Served) / float64(n)
	}
}

// SortHealth orders rows as Health documents.
func SortHealth(rows []BindingHealth) {
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Provider != rows[j].Provider {
			return rows[i].Provider < rows[j].Provider
		}
		return rows[i].Model < rows[j].Model
	})
}

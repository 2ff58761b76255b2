package admission

import (
	"fmt"
	"sync"
	"time"

	"github.com/heddle-gw/heddle/billing"
)

// softAlertEvery is how often one replica logs the same soft budget being
// over its limit: every request over it would flood the log.
const softAlertEvery = time.Minute

// maxAlertKeys bounds the throttle's memory; when full it is emptied (at
// worst an alert repeats early).
const maxAlertKeys = 10000

// softAlerts throttles soft-budget alerts per scope, period and period
// start. Safe for concurrent use.
type softAlerts struct {
	mu   sync.Mutex
	last map[string]time.Time
}

func newSoftAlerts() *softAlerts { return &softAlerts{last: map[string]time.Time{}} }

// due reports whether s should be logged now, and if so notes it.
func (a *softAlerts) due(s billing.BudgetStatus, now time.Time) bool {
	k := fmt.Sprint(s.Budget.Scope, "/", s.Budget.Period, "@", s.Budget.Period.Start(now).Unix())
	a.mu.Lock()
	defer a.mu.Unlock()
	if t, ok := a.last[k]; ok && now.Sub(t) < softAlertEvery {
		return false
	}
	if len(a.last) >= maxAlertKeys {
		clear(a.last)
	}
	a.last[k] = now
	return true
}

package gateway

import (
	"context"
	"time"
)

// Limits are the caller key's rate limits and budgets, and its
// organisation's cap on requests in flight per replica (0: none; the
// cap's 0 is the operator's default). The Authenticator resolves them:
// what the key or organisation set, else its plan's defaults.
type Limits struct {
	RPM, TPM                               int
	DailyBudgetMicros, MonthlyBudgetMicros int64
	SoftBudgets                            bool // the budgets alert, never refuse
	MaxConcurrency                         int
}

// Guard admits turns against rate limits and budgets, and settles them
// afterwards. Admit fails closed: a limiter or budget store it cannot reach
// is an error, never an admission.
type Guard interface {
	// Admit returns nil, or an error the HTTP layer maps to 429 (rate
	// limited, with a retry delay), 402 (budget exceeded) or 503.
	Admit(ctx context.Context, c Caller, now time.Time) error
	// Settle records a served turn's cost and tokens; it must not block
	// beyond its own timeout on each store call. ctx is the turn's without
	// its cancellation (traces and log fields stay; the turn may be over).
	Settle(ctx context.Context, c Caller, costMicros int64, tokens int, now time.Time)
}

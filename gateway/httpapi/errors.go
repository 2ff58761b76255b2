package httpapi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/tenancy"
)

// apiError is what the caller receives for a failed request.
type apiError struct {
	Status     int
	Code       string // <group>.<code>, sent as x-heddle-error
	Kind       string // Anthropic-style error type; codecs map it to their own
	Message    string
	RetryAfter int // seconds, 0 for none
}

// classify is the one error table of the data plane.
func classify(err error) apiError {
	var (
		limited *tenancy.RateLimitError
		budget  *billing.BudgetError
		bad     *llm.BadRequestError
		field   *gateway.FieldError
		up      *dispatch.UpstreamError
	)
	switch {
	case errors.Is(err, tenancy.ErrKeySuspended):
		return apiError{401, "tenancy.key_suspended", "authentication_error", "this API key is suspended: the member who created it left the organisation; an admin can reinstate it", 0}
	case errors.Is(err, gateway.ErrUnauthorized):
		return apiError{401, "tenancy.unauthorized", "authentication_error", "invalid API key", 0}
	case errors.As(err, &limited):
		return apiError{429, "tenancy.rate_limited", "rate_limit_error", "this key's rate limit is reached; retry after the Retry-After delay", retrySeconds(limited.RetryAfter)}
	case errors.Is(err, tenancy.ErrLimiterUnavailable):
		return apiError{503, "tenancy.limiter_unavailable", "overloaded_error", "rate limits cannot be checked right now; retry", 1}
	case errors.As(err, &budget):
		return apiError{402, "billing.budget_exceeded", "billing_error", fmt.Sprintf("the %s %s budget of $%.2f is spent; it resets at %s",
			budget.Scope[:strings.IndexByte(budget.Scope+":", ':')], budget.Period, float64(budget.LimitMicros)/1e6, budget.ResetAt.UTC().Format(time.RFC3339)), 0}
	case errors.Is(err, credits.ErrInsufficientCredits):
		return apiError{402, "billing.insufficient_credits", "billing_error", "the organisation's prepaid credit does not cover this request's maximum cost; nothing was sent upstream", 0}
	case errors.Is(err, credits.ErrUnavailable):
		return apiError{503, "billing.unavailable", "overloaded_error", "prepaid credit cannot be checked right now; retry", 1}
	case errors.Is(err, billing.ErrBudgetUnavailable):
		return apiError{503, "billing.unavailable", "overloaded_error", "budgets cannot be checked right now; retry", 1}
	case errors.Is(err, gateway.ErrForbidden):
		return apiError{403, "tenancy.forbidden", "permission_error", "this key lacks the inference scope", 0}
	case errors.As(err, &bad):
		return apiError{400, "request.invalid", "invalid_request_error", strings.TrimPrefix(bad.Error(), "llm: bad request: "), 0}
	case errors.As(err, &field) && errors.Is(err, gateway.ErrModelNotAllowed):
		return apiError{403, "routing.model_not_allowed", "permission_error", field.Field + ": " + strings.TrimPrefix(field.Err.Error(), "gateway: model not allowed by the organisation: ") + " is not allowed by the organisation's routing settings", 0}
	case errors.As(err, &field) && errors.Is(err, gateway.ErrUnknownModel):
		return apiError{400, "request.unknown_model", "invalid_request_error", field.Field + ": " + strings.TrimPrefix(field.Err.Error(), "gateway: unknown model: ") + " is not a known model", 0}
	case errors.As(err, &field):
		return apiError{400, "request.invalid", "invalid_request_error", strings.TrimPrefix(field.Error(), "gateway: "), 0}
	case errors.Is(err, errTooLarge):
		return apiError{413, "request.too_large", "request_too_large", "request body is larger than the configured limit", 0}
	case errors.Is(err, gateway.ErrNotOnPlan):
		return apiError{403, "billing.model_not_on_plan", "permission_error", "the organisation's plan does not cover the requested model (for a routed request: any eligible model) and no credential of the organisation's own serves it; nothing was sent upstream", 0}
	case errors.Is(err, gateway.ErrNoBinding):
		return apiError{400, "request.no_binding", "invalid_request_error", "model has no usable provider binding", 0}
	case errors.Is(err, routing.ErrUnavailable):
		return apiError{503, "routing.unavailable", "overloaded_error", "the router cannot decide for this request (" + routingCause(err) + "); nothing was sent upstream", 0}
	case errors.Is(err, dispatch.ErrCommitted):
		// The client already got 200 and the stream's own error event: the
		// record keeps the 200 it saw, and the code (the one dispatch names
		// it by) marks the turn failed for the console's error filters.
		return apiError{200, "dispatch.stream_interrupted", "api_error", "the upstream stream failed after it had started", 0}
	case errors.Is(err, dispatch.ErrShutdown):
		return apiError{503, "dispatch.shutting_down", "overloaded_error", "the server is shutting down; send the request again", 1}
	case errors.Is(err, dispatch.ErrDuplicateInFlight):
		return apiError{409, "dispatch.duplicate_in_flight", "invalid_request_error", "a request with this Idempotency-Key is in flight", 0}
	case errors.Is(err, dispatch.ErrIdempotencyMismatch):
		return apiError{422, "dispatch.idempotency_mismatch", "invalid_request_error", "this Idempotency-Key was used with a different request body", 0}
	case errors.Is(err, dispatch.ErrCircuitOpen):
		return apiError{503, "dispatch.circuit_open", "overloaded_error", "every upstream for this model is failing; retry shortly", 5}
	case errors.Is(err, dispatch.ErrOverloaded):
		return apiError{503, "dispatch.overloaded", "overloaded_error", "too many concurrent requests; retry", 1}
	case errors.As(err, &up) && up.Reason == dispatch.ReasonBadRequest:
		return apiError{400, "upstream.bad_request", "invalid_request_error", "upstream rejected the request: " + up.Message, 0}
	case errors.As(err, &up) && up.Reason == dispatch.ReasonAuth:
		return apiError{502, "upstream.auth", "api_error", "the upstream rejected the organisation's credential for " + up.Provider, 0}
	case errors.Is(err, dispatch.ErrNotConfigured) && !errors.Is(err, dispatch.ErrAttemptsExhausted):
		return apiError{400, "dispatch.provider_not_configured", "invalid_request_error", "no provider credential is configured for this model; add one in the console", 0}
	case errors.Is(err, dispatch.ErrAttemptsExhausted):
		if errors.Is(err, dispatch.ErrNotConfigured) && !errors.As(err, &up) {
			return apiError{400, "dispatch.provider_not_configured", "invalid_request_error", "no provider credential is configured for this model; add one in the console", 0}
		}
		return apiError{502, "dispatch.attempts_exhausted", "api_error", "every upstream attempt failed", 0}
	case errors.Is(err, context.Canceled):
		return apiError{499, "request.canceled", "api_error", "request canceled", 0}
	case errors.Is(err, context.DeadlineExceeded):
		return apiError{504, "request.timeout", "api_error", "request timed out", 0}
	}
	return apiError{500, "internal.error", "api_error", "internal error", 0}
}

// Classify returns the status and code the caller receives for err; the
// gateway uses it for request records.
func Classify(err error) (int, string) {
	e := classify(err)
	return e.Status, e.Code
}

// nativeError renders e in format f's error shape.
func nativeError(codec llm.Codec, e apiError) []byte {
	status := e.Status
	if status == 499 {
		status = http.StatusBadRequest
	}
	return codec.EncodeError(status, e.Kind, e.Message)
}

func retryAfter(e apiError) string {
	if e.RetryAfter <= 0 {
		return ""
	}
	return strconv.Itoa(e.RetryAfter)
}

// routingCause names why routing failed, without internal detail.
func routingCause(err error) string {
	switch {
	case errors.Is(err, routing.ErrNoBundle):
		return "no routing bundle"
	case errors.Is(err, routing.ErrEmbedderMismatch):
		return "bundle and embedder do not match"
	case errors.Is(err, routing.ErrEmbedTimeout):
		return "embedding timed out"
	case errors.Is(err, routing.ErrEmbed):
		return "embedding failed"
	case errors.Is(err, routing.ErrNoEligible):
		return "no eligible model"
	}
	return "unavailable"
}

// retrySeconds rounds a retry delay up to whole seconds (at least 1).
func retrySeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// authError is what a caller whose Authenticate failed is told: that a
// suspended key is suspended; for any other key problem (unknown, revoked,
// expired, or the key store failing: fail closed) only that it is
// unauthorized; and when the key was good but its limits could not be
// resolved (plan or budget settings unreadable), the store's error (503).
func authError(err error) error {
	switch {
	case errors.Is(err, tenancy.ErrKeySuspended):
		return err
	case errors.Is(err, gateway.ErrUnauthorized):
		return gateway.ErrUnauthorized
	}
	// A good key whose plan or budget settings cannot be read: fail closed
	// with the store's error (503), never as a bad key.
	return err
}

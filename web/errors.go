package web

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenantmodel"
)

// ErrMissingService is a Services field left nil: NewAPI and NewConsole
// wrap it with the field's name and refuse to build.
var ErrMissingService = errors.New("web: required service missing")

// Errors of the web layer itself.
var (
	errUnauthenticated = errors.New("web: authentication required")
	errCSRF            = errors.New("web: missing or invalid CSRF token")
	errBodyTooLarge    = errors.New("web: request body too large")
	errMediaType       = errors.New("web: content type must be application/json")
	errBadJSON         = errors.New("web: malformed JSON body")
	errNoOrg           = errors.New("web: no current organisation")
	errRoute           = errors.New("web: no such endpoint")
)

// errorKind is how one error maps onto HTTP.
type errorKind struct {
	err     error
	status  int
	code    string
	message string // "" means use the error's own text (safe for these)
}

// errorTable maps domain and web errors to a status and a stable code, first
// match wins. Codes name the layer that refused: web.* for the web layer's
// own checks (CSRF, routes, bodies), the domain's group otherwise. Anything
// not listed is a 500 web.internal with an error id in the logs.
var errorTable = []errorKind{
	{errUnauthenticated, fiber.StatusUnauthorized, "tenancy.unauthorized", "authentication required"},
	{tenancy.ErrUnauthorized, fiber.StatusUnauthorized, "tenancy.unauthorized", "authentication required"},
	{tenancy.ErrInvalidLogin, fiber.StatusUnauthorized, "tenancy.invalid_login", "invalid email or password"},
	{errCSRF, fiber.StatusForbidden, "web.csrf_invalid", "missing or invalid CSRF token (send the heddle_csrf cookie's value in X-CSRF-Token)"},
	{errNoOrg, fiber.StatusForbidden, "tenancy.no_organisation", "you are not a member of the session's organisation; switch organisation first"},
	{tenancy.ErrForbidden, fiber.StatusForbidden, "tenancy.forbidden", "your role does not allow this"},
	{tenancy.ErrNotFound, fiber.StatusNotFound, "tenancy.not_found", "not found"},
	{errRoute, fiber.StatusNotFound, "web.no_route", "no such endpoint"},
	{tenancy.ErrNotConfigured, fiber.StatusNotFound, "tenancy.not_configured", "no credential for this provider"},
	{tenancy.ErrEmailTaken, fiber.StatusConflict, "tenancy.email_taken", "that email is already registered"},
	{tenancy.ErrLastOwner, fiber.StatusConflict, "tenancy.last_owner", "an organisation needs at least one owner"},
	{errContentUnreadable, fiber.StatusGone, "analytics.content_unreadable", "the stored content was sealed under a data key that was since replaced; it cannot be read"},
	{tenancy.ErrDataKeyChanged, fiber.StatusConflict, "tenancy.conflict", "a concurrent change got there first; try again"},
	{tenancy.ErrConflict, fiber.StatusConflict, "tenancy.conflict", "conflicts with an existing object"},
	{tenancy.ErrInvitationInvalid, fiber.StatusGone, "tenancy.invitation_invalid", "invitation invalid, expired or already used"},
	{tenancy.ErrInvalidInput, fiber.StatusBadRequest, "tenancy.invalid_input", ""},
	{analytics.ErrInvalidPrivacy, fiber.StatusBadRequest, "analytics.invalid_privacy", ""},
	{errBadJSON, fiber.StatusBadRequest, "web.bad_request", ""},
	{errBodyTooLarge, fiber.StatusRequestEntityTooLarge, "web.body_too_large", "request body too large"},
	{errMediaType, fiber.StatusUnsupportedMediaType, "web.unsupported_media_type", "send Content-Type: application/json"},
	{tenancy.ErrCredentialTest, fiber.StatusUnprocessableEntity, "tenancy.credential_test_failed", ""},
	{tenancy.ErrRateLimited, fiber.StatusTooManyRequests, "tenancy.rate_limited", "too many attempts; retry later"},
	{errUploadMediaType, fiber.StatusUnsupportedMediaType, "routing.unsupported_media_type", "send the evaluation data as Content-Type: application/x-ndjson or application/jsonl"},
	{routing.ErrTrainingQueueFull, fiber.StatusTooManyRequests, "routing.training_queue_full", "too many trainings are waiting; retry when one finished"},
	{routing.ErrJobNotFound, fiber.StatusNotFound, "routing.job_not_found", "no such training job"},
	{routing.ErrJobFinished, fiber.StatusConflict, "routing.job_finished", "the training job already ended"},
	{routing.ErrInvalidSettings, fiber.StatusBadRequest, "routing.invalid_settings", ""},
	{routing.ErrDataTooLarge, fiber.StatusRequestEntityTooLarge, "routing.data_too_large", ""},
	{routing.ErrData, fiber.StatusUnprocessableEntity, "routing.invalid_data", ""},
	// The routing page's "try a prompt" (gateway.Service.Route).
	{gateway.ErrModelNotAllowed, fiber.StatusForbidden, "routing.model_not_allowed", "the model is not allowed by the organisation's routing settings"},
	{gateway.ErrUnknownModel, fiber.StatusBadRequest, "routing.unknown_model", "not a known model"},
	{gateway.ErrNotOnPlan, fiber.StatusForbidden, "billing.model_not_on_plan", "the organisation's plan covers no model that fits, and no credential of its own serves one"},
	{gateway.ErrNoBinding, fiber.StatusUnprocessableEntity, "routing.no_binding", "no provider the organisation can use serves this model"},
	{routing.ErrNoEligible, fiber.StatusUnprocessableEntity, "routing.no_eligible_model", "no model is eligible: add a provider credential or relax the allow list"},
	{routing.ErrUnavailable, fiber.StatusServiceUnavailable, "routing.unavailable", "the router cannot decide right now; retry"},
	{errAboveOperatorLimit, fiber.StatusUnprocessableEntity, "billing.concurrency_above_limit", ""},
	{billing.ErrInvalidBudgetSettings, fiber.StatusBadRequest, "billing.invalid_budget", ""},
	{billing.ErrBudgetUnavailable, fiber.StatusServiceUnavailable, "billing.unavailable", "budgets cannot be read right now; retry"},
	{tenantmodel.ErrProviderInUse, fiber.StatusConflict, "tenantmodel.provider_in_use", "the provider still has models; delete them first"},
	{tenantmodel.ErrUnavailable, fiber.StatusServiceUnavailable, "tenantmodel.unavailable", "the organisation's models cannot be read right now; retry"},
	{analytics.ErrNotFound, fiber.StatusNotFound, "analytics.not_found", "not found"},
	{credits.ErrInvalid, fiber.StatusBadRequest, "credits.invalid_input", ""},
	{credits.ErrNotOperator, fiber.StatusForbidden, "credits.not_operator", "this needs the platform operator role"},
	{credits.ErrNotFound, fiber.StatusNotFound, "credits.not_found", "not found"},
	{credits.ErrConflict, fiber.StatusConflict, "credits.conflict", "a plan with that name exists"},
	{credits.ErrInsufficientCredits, fiber.StatusPaymentRequired, "billing.insufficient_credits", "not enough prepaid credit"},
	{credits.ErrUnavailable, fiber.StatusServiceUnavailable, "billing.unavailable", "prepaid credit cannot be read right now; retry"},
	{analytics.ErrOrgRequired, fiber.StatusForbidden, "tenancy.no_organisation", "no current organisation"},
	{analytics.ErrQueryLimit, fiber.StatusServiceUnavailable, "analytics.query_limit", "the query stopped at the analytics store's limits; narrow the time range or filter"},
	{analytics.ErrPrivacyUnavailable, fiber.StatusServiceUnavailable, "analytics.privacy_unavailable", "privacy settings or stored content cannot be read right now; retry"},
}

// apiError is the JSON error body.
type apiError struct {
	Error apiErrorDetail `json:"error"`
}

type apiErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
	ErrorID string `json:"error_id,omitempty"`
}

// classify returns the status and body for err.
func classify(err error) (int, apiErrorDetail, bool) {
	for _, k := range errorTable {
		if !errors.Is(err, k.err) {
			continue
		}
		d := apiErrorDetail{Code: k.code, Message: k.message}
		if d.Message == "" {
			d.Message = publicMessage(err)
		}
		var ve *tenancy.ValidationError
		if errors.As(err, &ve) {
			d.Field, d.Message = ve.Field, ve.Field+" "+ve.Message
		}
		var fe *fieldError
		if errors.As(err, &fe) {
			d.Field = fe.field
		}
		var rf *routing.FieldError
		if errors.As(err, &rf) {
			d.Field = rf.Field
		}
		var cf *credits.FieldError
		if errors.As(err, &cf) {
			d.Field, d.Message = cf.Field, cf.Field+" "+cf.Message
		}
		var bf *billing.FieldError
		if errors.As(err, &bf) {
			d.Field, d.Message = bf.Field, bf.Public()
		}
		return k.status, d, true
	}
	return fiber.StatusInternalServerError, apiErrorDetail{Code: "web.internal", Message: "internal error"}, false
}

// unavailable says a known error's status means a dependency failed (so
// the cause is worth a log line).
func unavailable(status int) bool { return status >= 500 }

// publicMessage is the text of errors whose messages are written for users.
func publicMessage(err error) string {
	var pe interface{ Public() string }
	if errors.As(err, &pe) {
		return pe.Public()
	}
	return err.Error()
}

// IsAdminPath reports whether path is under the admin API's /api/v1 (so
// the server's error handler answers in ErrorHandler's JSON shape).
func IsAdminPath(path string) bool { return path == "/api/v1" || strings.HasPrefix(path, "/api/v1/") }

// ErrorHandler renders the errors fiber raises around the API's handlers (a
// body over the server's BodyLimit, an unknown route, malformed HTTP) in the
// admin API's JSON shape, never the data plane's. Use it for the paths
// IsAdminPath accepts.
func (a *API) ErrorHandler(c *fiber.Ctx, err error) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch {
		case fe.Code == fiber.StatusRequestEntityTooLarge:
			err = errBodyTooLarge
		case fe.Code == fiber.StatusNotFound || fe.Code == fiber.StatusMethodNotAllowed:
			err = errRoute
		case fe.Code >= 400 && fe.Code < 500:
			return c.Status(fe.Code).JSON(apiError{Error: apiErrorDetail{Code: "web.bad_request", Message: fe.Message}})
		}
	}
	return a.fail(c, err)
}

// fail writes err as a JSON error. Unknown errors are logged with an error
// id that is also returned, never their text.
func (a *API) fail(c *fiber.Ctx, err error) error {
	status, d, known := classify(err)
	if !known {
		id := make([]byte, 8)
		rand.Read(id)
		d.ErrorID = hex.EncodeToString(id)
		a.d.Logger.ErrorContext(c.UserContext(), "admin api error", "err", err, "error_id", d.ErrorID,
			"method", c.Method(), "route", c.Route().Path)
	} else if unavailable(status) {
		a.d.Logger.ErrorContext(c.UserContext(), "admin api dependency unavailable", "err", err,
			"method", c.Method(), "route", c.Route().Path)
	}
	var rl *tenancy.RateLimitError
	if errors.As(err, &rl) {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(int(math.Ceil(rl.RetryAfter.Seconds()))))
	}
	return c.Status(status).JSON(apiError{Error: d})
}

package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/web/views/components"
	"github.com/heddle-gw/heddle/web/views/layout"
)

// Errors of the console (the admin API's are in errors.go).
var (
	// errFormInput is wrapped by formError: a form field the console itself
	// could not parse.
	errFormInput = errors.New("web: invalid form input")
	// errFormToken is a log-in or sign-up post without its form token.
	errFormToken = errors.New("web: missing or invalid form token")
)

// formError is a form field the console could not parse, with a message
// written for the user.
type formError struct{ field, msg string }

func (e *formError) Error() string { return "web: invalid " + e.field + ": " + e.msg }
func (e *formError) Unwrap() error { return errFormInput }

// consoleErrors maps the errors only the console meets; everything else goes
// through the admin API's errorTable.
var consoleErrors = []struct {
	err     error
	status  int
	message string
}{
	{analytics.ErrNotFound, fiber.StatusNotFound, "No request with that id in this organisation."},
	{analytics.ErrInvalidCursor, fiber.StatusBadRequest, "That page link is no longer valid; start from the first page."},
	{analytics.ErrInvalidRange, fiber.StatusBadRequest, "The time range ends before it starts."},
	{analytics.ErrQueryLimit, fiber.StatusServiceUnavailable, "This view would read too much at once; narrow the time range or add a filter."},
	{errFormInput, fiber.StatusUnprocessableEntity, "Please correct the field marked below."},
	{errFormToken, fiber.StatusForbidden, "The form expired; reload the page and try again."},
	{errCSRF, fiber.StatusForbidden, "Missing or invalid CSRF token; reload the page and try again."},
}

// consoleError returns the status and a message safe to show for err, and
// whether err was expected.
func consoleError(err error) (int, string, bool) {
	for _, k := range consoleErrors {
		if errors.Is(err, k.err) {
			return k.status, k.message, true
		}
	}
	status, d, known := classify(err)
	return status, d.Message, known
}

// errorText is the message for err; unexpected errors are logged under a
// fresh error id, which the message names.
func (c *Console) errorText(ctx *fiber.Ctx, err error) (status int, msg, errorID string) {
	status, msg, known := consoleError(err)
	if !known {
		b := make([]byte, 8)
		rand.Read(b)
		errorID = hex.EncodeToString(b)
		c.d.Logger.ErrorContext(ctx.UserContext(), "console error", "err", err, "error_id", errorID,
			"method", ctx.Method(), "route", ctx.Route().Path)
		msg = "Something went wrong on our side (error id " + errorID + ")."
	} else if unavailable(status) {
		c.d.Logger.ErrorContext(ctx.UserContext(), "console dependency unavailable", "err", err,
			"method", ctx.Method(), "route", ctx.Route().Path)
	}
	return status, msg, errorID
}

// fail renders err as an error panel: a partial for htmx, a page otherwise.
func (c *Console) fail(ctx *fiber.Ctx, err error) error {
	status, msg, id := c.errorText(ctx, err)
	var rl *tenancy.RateLimitError
	if errors.As(err, &rl) {
		ctx.Set(fiber.HeaderRetryAfter, retryAfter(rl))
	}
	panel := components.ErrorPanel(components.ErrorPageProps{Status: status, Title: http.StatusText(status), Message: msg, ErrorID: id})
	if isHTMX(ctx) {
		return c.render(ctx, status, panel)
	}
	p := layout.Props{Title: http.StatusText(status), Nonce: nonceOf(ctx)}
	if s := sessionOf(ctx); s != nil {
		p.CSRF, p.Email, p.Org = s.CSRF, s.Email, s.OrgName
	}
	return c.render(ctx, status, layoutWith(p, panel))
}

// fieldErrors splits a validation error into a field -> message map (empty
// for other errors) and a form-level message.
func fieldErrors(err error) (map[string]string, string) {
	var ve *tenancy.ValidationError
	if errors.As(err, &ve) {
		return map[string]string{ve.Field: ve.Message}, "Please correct the field marked below."
	}
	var fe *formError
	if errors.As(err, &fe) {
		return map[string]string{fe.field: fe.msg}, "Please correct the field marked below."
	}
	return nil, ""
}

// isInvalidInput reports whether err is the user's input being refused (so
// the form re-renders with 422).
func isInvalidInput(err error) bool {
	return errors.Is(err, tenancy.ErrInvalidInput) || errors.Is(err, errFormInput)
}

// layoutWith renders body inside the page shell.
func layoutWith(p layout.Props, body templ.Component) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		return layout.Page(p).Render(templ.WithChildren(ctx, body), w)
	})
}

// retryAfter is the Retry-After value of a rate-limit error, in seconds.
func retryAfter(rl *tenancy.RateLimitError) string {
	return strconv.Itoa(int(math.Ceil(rl.RetryAfter.Seconds())))
}

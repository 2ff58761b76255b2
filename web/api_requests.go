package web

import (
	"errors"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/tenancy"
)

// errBadCursor is an API cursor the Reader did not issue for this filter.
var errBadCursor = &tenancy.ValidationError{Field: "cursor", Message: "is not a cursor of this listing; start from the first page"}

// requestView is one request row of the admin API. Money is integer
// micro-dollars; times are UTC.
type requestView struct {
	RequestID      string    `json:"id"`
	Time           time.Time `json:"time"`
	KeyID          string    `json:"key_id"`
	User           string    `json:"user,omitempty"`
	Session        string    `json:"session,omitempty"`
	Format         string    `json:"format"`
	RequestedModel string    `json:"requested_model"`
	ServedModel    string    `json:"served_model"`
	Provider       string    `json:"provider"`
	RouteKind      string    `json:"route_kind"`
	Decision       string    `json:"decision,omitempty"`
	CacheHit       bool      `json:"cache_hit"`
	Stream         bool      `json:"stream"`
	Fallback       bool      `json:"fallback"`
	Attempts       int       `json:"attempts"`
	InputTokens    int64     `json:"input_tokens"`
	OutputTokens   int64     `json:"output_tokens"`
	CacheRead      int64     `json:"cache_read_tokens"`
	CacheWrite     int64     `json:"cache_write_tokens"`
	Reasoning      int64     `json:"reasoning_tokens"`
	CostMicros     int64     `json:"cost_micros"`
	BaselineMicros int64     `json:"baseline_micros"`
	SavingsMicros  int64     `json:"savings_micros"`
	LatencyMs      float64   `json:"latency_ms"`
	TTFBMs         float64   `json:"ttfb_ms"`
	Status         int       `json:"status"`
	ErrorCode      string    `json:"error_code,omitempty"`
}

func viewRequest(r analytics.Request) requestView {
	return requestView{
		RequestID: r.RequestID, Time: r.Time.UTC(), KeyID: r.KeyID, User: r.User, Session: r.Session, Format: r.Format,
		RequestedModel: r.RequestedModel, ServedModel: r.ServedModel, Provider: r.Provider, RouteKind: r.RouteKind,
		Decision: r.Decision, CacheHit: r.CacheHit, Stream: r.Stream, Fallback: r.Fallback, Attempts: r.Attempts,
		InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CacheRead: r.CacheRead, CacheWrite: r.CacheWrite,
		Reasoning: r.Reasoning, CostMicros: r.CostMicros, BaselineMicros: r.BaselineMicros, SavingsMicros: r.SavingsMicros,
		LatencyMs: r.LatencyMs, TTFBMs: r.TTFBMs, Status: r.Status, ErrorCode: r.ErrorCode,
	}
}

// attemptView is one upstream attempt of a request's detail.
type attemptView struct {
	Time         time.Time `json:"time"`
	OperationID  string    `json:"operation_id"`
	Index        int       `json:"index"`
	Purpose      string    `json:"purpose"`
	Model        string    `json:"model"`
	Provider     string    `json:"provider"`
	Upstream     string    `json:"upstream"`
	CredentialID string    `json:"credential_id,omitempty"`
	Outcome      string    `json:"outcome"`
	Reason       string    `json:"reason,omitempty"`
	Status       int       `json:"status"`
	LatencyMs    float64   `json:"latency_ms"`
	TTFBMs       float64   `json:"ttfb_ms"`
	InputTokens  int64     `json:"input_tokens"`
	OutputTokens int64     `json:"output_tokens"`
	CostMicros   int64     `json:"cost_micros"`
	Stream       bool      `json:"stream"`
}

func viewAttempt(a analytics.Attempt) attemptView {
	return attemptView{
		Time: a.Time.UTC(), OperationID: a.OperationID, Index: a.AttemptIndex, Purpose: a.Purpose, Model: a.Model,
		Provider: a.Provider, Upstream: a.Upstream, CredentialID: a.CredentialID, Outcome: a.Outcome, Reason: a.Reason,
		Status: a.Status, LatencyMs: a.LatencyMs, TTFBMs: a.TTFBMs, InputTokens: a.InputTokens,
		OutputTokens: a.OutputTokens, CostMicros: a.CostMicros, Stream: a.Stream,
	}
}

// apiRequestFilter reads the explorer's filter (model, route, status ok or
// error, key, from, to) and the API's own limit; errors are
// *tenancy.ValidationError naming the parameter.
func apiRequestFilter(c *fiber.Ctx) (analytics.RequestFilter, int, error) {
	af, err := analyticsFilter(requestFilter(c))
	var fe *formError
	if errors.As(err, &fe) {
		return af, 0, badParam(fe.field, fe.msg)
	}
	if !af.From.IsZero() && !af.To.IsZero() && af.To.Before(af.From) {
		return af, 0, badParam("to", "must not be before from")
	}
	limit := analytics.DefaultPageSize
	if s := c.Query("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > analytics.MaxPageSize {
			return af, 0, badParam("limit", "must be a whole number from 1 to "+strconv.Itoa(analytics.MaxPageSize))
		}
		limit = n
	}
	return af, limit, nil
}

// listRequests handles GET /api/v1/requests (viewers and above): the current
// organisation's requests, newest first, filtered as the console's explorer
// filters them, one page per call; next_cursor (absent on the last page)
// fetches the next page with the same filter.
func (a *API) listRequests(c *fiber.Ctx) error {
	act, err := a.actor(c)
	if err != nil {
		return a.fail(c, err)
	}
	if !act.Can(tenancy.PermRead) {
		return a.fail(c, tenancy.ErrForbidden)
	}
	f, limit, err := apiRequestFilter(c)
	if err != nil {
		return a.fail(c, err)
	}
	page, err := a.d.Reader.ListRequests(c.UserContext(), act.OrgID, f, utils.CopyString(c.Query("cursor")), limit)
	if errors.Is(err, analytics.ErrInvalidCursor) {
		err = errBadCursor
	}
	if err != nil {
		return a.fail(c, err)
	}
	out := struct {
		Requests []requestView `json:"requests"`
		Next     string        `json:"next_cursor,omitempty"`
		// Where a search that spent its read budget stopped (next_cursor
		// searches older).
		SearchedFrom *time.Time `json:"searched_from,omitempty"`
	}{Requests: make([]requestView, len(page.Requests)), Next: page.Next}
	if !page.SearchedFrom.IsZero() {
		out.SearchedFrom = &page.SearchedFrom
	}
	for i, r := range page.Requests {
		out.Requests[i] = viewRequest(r)
	}
	return c.JSON(out)
}

// getRequest handles GET /api/v1/requests/:id (viewers and above): one
// request of the current organisation and its upstream attempts in order;
// 404 analytics.not_found for an id of another organisation or none.
// "request" is null while only its attempt rows have arrived.
func (a *API) getRequest(c *fiber.Ctx) error {
	act, err := a.actor(c)
	if err != nil {
		return a.fail(c, err)
	}
	if !act.Can(tenancy.PermRead) {
		return a.fail(c, tenancy.ErrForbidden)
	}
	tl, err := a.d.Reader.Timeline(c.UserContext(), act.OrgID, param(c, "id"))
	if err != nil {
		return a.fail(c, err)
	}
	out := struct {
		Request  *requestView  `json:"request"`
		Attempts []attemptView `json:"attempts"`
	}{Attempts: make([]attemptView, len(tl.Attempts))}
	if tl.Request != nil {
		v := viewRequest(*tl.Request)
		out.Request = &v
	}
	for i, at := range tl.Attempts {
		out.Attempts[i] = viewAttempt(at)
	}
	return c.JSON(out)
}

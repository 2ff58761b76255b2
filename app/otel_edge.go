package app

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/llm"
)

// dataPlaneRoute names the data-plane route of a request (the paths
// httpapi.Mount registers), or reports false: only these get a server span.
func dataPlaneRoute(method, path string) (string, bool) {
	switch path {
	case "/v1/messages", "/v1/messages/count_tokens", "/v1/chat/completions", "/v1/responses", "/v1/route":
		return path, method == fiber.MethodPost
	case "/v1/models", "/v1beta/models":
		return path, method == fiber.MethodGet
	}
	if strings.HasPrefix(path, "/v1beta/models/") && method == fiber.MethodPost {
		return "/v1beta/models/:call", true
	}
	return "", false
}

// middleware starts the server span of each data-plane request, continuing
// the caller's W3C traceparent. A recorded request carries its *turnSpan in
// the user context; the span ends here, or for a stream when the stream
// writer reports the outcome (observe).
func (t *tracing) middleware(c *fiber.Ctx) error {
	route, ok := dataPlaneRoute(c.Method(), c.Path())
	if !ok {
		return c.Next()
	}
	// The span is exported after the handler returns, when the server has
	// reused the buffers c.Method and c.Path point into (with
	// ReduceMemoryUsage another connection's request may be parsed into
	// them at once): its attributes hold copies.
	method, route := strings.Clone(c.Method()), strings.Clone(route)
	parent := t.prop.Extract(context.Background(), fiberCarrier{c})
	ctx, span := t.tracer.Start(parent, method+" "+route, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(semconv.HTTPRequestMethodKey.String(method), semconv.HTTPRoute(route)))
	if !span.IsRecording() {
		c.SetUserContext(ctx) // sampled out: only the trace context travels upstream
		return c.Next()
	}
	ts := &turnSpan{t: t, span: span}
	ts.ctx = context.WithValue(ctx, turnSpanKey{}, ts)
	c.SetUserContext(ts.ctx)
	returned := false
	defer func() {
		if !returned { // a panic, recovered (and answered 500) further out
			ts.end(fiber.StatusInternalServerError, "internal.error")
		}
	}()
	err := c.Next()
	returned = true
	if err == nil && c.Response().IsBodyStream() {
		return nil // the stream writer ends the span through observe
	}
	status := c.Response().StatusCode()
	if err != nil {
		status = fiber.StatusInternalServerError
		var fe *fiber.Error
		if errors.As(err, &fe) {
			status = fe.Code
		}
	}
	ts.end(status, string(c.Response().Header.Peek("x-heddle-error")))
	return err
}

// fiberCarrier reads propagation headers from a fiber request. Values are
// copied: fiber reuses its buffers after the handler.
type fiberCarrier struct{ c *fiber.Ctx }

func (f fiberCarrier) Get(key string) string { return strings.Clone(f.c.Get(key)) }
func (f fiberCarrier) Set(key, value string) { f.c.Request().Header.Set(key, value) }
func (f fiberCarrier) Keys() []string        { return nil } // extraction reads by name

// begin is httpapi's Begin hook: it ties the turn's request id to its
// server span, so the turn's attempt events and record find it. With
// tracing off there is no hook.
func (t *tracing) begin() func(ctx context.Context, turn *gateway.Turn) context.Context {
	if t == nil {
		return nil
	}
	return func(ctx context.Context, turn *gateway.Turn) context.Context {
		ts := turnFrom(ctx)
		if ts == nil {
			return ctx
		}
		ts.mu.Lock()
		ts.requestID = turn.RequestID
		ts.mu.Unlock()
		ts.span.SetAttributes(attrRequestID.String(turn.RequestID), attrFormat.String(string(turn.Format)))
		t.turns.Store(turn.RequestID, ts)
		return ctx
	}
}

// observe wraps httpapi's Observe: a committed response (stream or not) ends
// its server span with the status the caller got.
func (t *tracing) observe(next func(llm.Format, int, string, gateway.Served)) func(llm.Format, int, string, gateway.Served) {
	if t == nil {
		return next
	}
	return func(f llm.Format, status int, code string, s gateway.Served) {
		next(f, status, code, s)
		if s.RequestID == "" {
			return // not committed: the middleware ends the span
		}
		if ts := t.lookup(s.RequestID); ts != nil {
			ts.end(status, code)
		}
	}
}

// tracedAuth adds the caller's organisation and key prefix to the server span.
type tracedAuth struct{ next gateway.Authenticator }

func (a tracedAuth) Authenticate(ctx context.Context, presented string) (gateway.Caller, error) {
	c, err := a.next.Authenticate(ctx, presented)
	if err == nil {
		if ts := turnFrom(ctx); ts != nil {
			ts.span.SetAttributes(attrOrgID.String(c.OrgID), attrKeyPrefix.String(c.KeyPrefix))
		}
	}
	return c, err
}

// auth wraps the data plane's authenticator; with tracing off it returns next.
func (t *tracing) auth(next gateway.Authenticator) gateway.Authenticator {
	if t == nil {
		return next
	}
	return tracedAuth{next: next}
}

// propagatingTransport sends the turn's trace context upstream as a W3C
// traceparent (the upstream's spans become children of the server span).
// The caller's tracestate is not forwarded to providers.
type propagatingTransport struct {
	next http.RoundTripper
	prop propagation.TraceContext
}

func (p propagatingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	sc := trace.SpanContextFromContext(r.Context())
	if !sc.IsValid() {
		return p.next.RoundTrip(r)
	}
	r = r.Clone(r.Context()) // a RoundTripper must not change the caller's request
	ctx := trace.ContextWithSpanContext(r.Context(), sc.WithTraceState(trace.TraceState{}))
	p.prop.Inject(ctx, propagation.HeaderCarrier(r.Header))
	return p.next.RoundTrip(r)
}

// upstream returns hc with trace propagation; with tracing off, hc itself.
func (t *tracing) upstream(hc *http.Client) *http.Client {
	if t == nil {
		return hc
	}
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	clone := *hc
	clone.Transport = propagatingTransport{next: next}
	return &clone
}

package app

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/routing"
)

// Span attributes Heddle adds. They carry ids, model names, the closed
// failure vocabulary and numbers: never prompt or response text, never a
// secret (an rk_ key appears only as its display prefix).
const (
	attrRequestID    = attribute.Key("heddle.request_id")
	attrFormat       = attribute.Key("heddle.format")
	attrOrgID        = attribute.Key("heddle.org_id")
	attrKeyPrefix    = attribute.Key("heddle.key_prefix")
	attrErrorCode    = attribute.Key("heddle.error_code")
	attrRouteKind    = attribute.Key("heddle.route.kind")
	attrRouteModel   = attribute.Key("heddle.route.model")
	attrRouteAlpha   = attribute.Key("heddle.route.alpha")
	attrRouteBundle  = attribute.Key("heddle.route.bundle")
	attrRouteChoice  = attribute.Key("heddle.route.decision")
	attrEligible     = attribute.Key("heddle.route.eligible")
	attrModel        = attribute.Key("heddle.model")
	attrProvider     = attribute.Key("heddle.provider")
	attrUpstream     = attribute.Key("heddle.upstream_model")
	attrFallback     = attribute.Key("heddle.fallback")
	attrAttempts     = attribute.Key("heddle.attempts")
	attrCacheHit     = attribute.Key("heddle.cache_hit")
	attrAttempt      = attribute.Key("heddle.attempt.index")
	attrOperation    = attribute.Key("heddle.attempt.operation_id")
	attrPurpose      = attribute.Key("heddle.attempt.purpose")
	attrOutcome      = attribute.Key("heddle.attempt.outcome")
	attrReason       = attribute.Key("heddle.attempt.reason")
	attrTTFBMs       = attribute.Key("heddle.attempt.ttfb_ms")
	attrStream       = attribute.Key("heddle.stream")
	attrInputTokens  = attribute.Key("gen_ai.usage.input_tokens")
	attrOutputTokens = attribute.Key("gen_ai.usage.output_tokens")
)

// Span names.
const (
	spanRoute   = "heddle.route"
	spanAttempt = "heddle.attempt"
)

// turnSpan is the recorded server span of one data-plane request and what
// its children need. Its methods are called from the fiber handler, the
// goroutine running the turn and the stream writer; mu guards the fields
// below it.
type turnSpan struct {
	t    *tracing
	ctx  context.Context // carries span: the parent of every child span
	span trace.Span
	once sync.Once

	mu        sync.Mutex
	requestID string
	route     *pendingRoute // the router's span, until the record names the route kind
	firstAt   time.Time     // start of the main operation's first attempt
	firstTo   string        // its model: the model the decision chose
}

// pendingRoute is a routing span whose end time is known but which stays
// open until the request record completes its attributes.
type pendingRoute struct {
	span trace.Span
	end  time.Time
}

type turnSpanKey struct{}

// turnFrom returns the recorded turn ctx belongs to, or nil.
func turnFrom(ctx context.Context) *turnSpan {
	ts, _ := ctx.Value(turnSpanKey{}).(*turnSpan)
	return ts
}

// lookup returns the recorded turn with request id id, or nil.
func (t *tracing) lookup(id string) *turnSpan {
	if v, ok := t.turns.Load(id); ok {
		return v.(*turnSpan)
	}
	return nil
}

// end closes the server span once (the first caller wins) with the status
// the caller got, closes a routing span the record never completed, and
// forgets the turn.
func (s *turnSpan) end(status int, code string) {
	s.once.Do(func() {
		s.mu.Lock()
		pending, id := s.route, s.requestID
		s.route = nil
		s.mu.Unlock()
		if pending != nil {
			pending.span.End(trace.WithTimestamp(pending.end))
		}
		s.span.SetAttributes(semconv.HTTPResponseStatusCode(status))
		if code != "" {
			s.span.SetAttributes(attrErrorCode.String(code), semconv.ErrorTypeKey.String(code))
		}
		if status >= 500 {
			s.span.SetStatus(codes.Error, code)
		}
		s.span.End()
		if id != "" {
			s.t.turns.Delete(id)
		}
	})
}

// decided keeps the router's span open until the record arrives.
func (s *turnSpan) decided(span trace.Span, end time.Time) {
	s.mu.Lock()
	old := s.route
	s.route = &pendingRoute{span: span, end: end}
	s.mu.Unlock()
	if old != nil { // a second decision in one turn: close the first as is
		old.span.End(trace.WithTimestamp(old.end))
	}
}

// attempt turns one dispatch attempt event into a child span with the
// attempt's own start and end times.
func (s *turnSpan) attempt(e dispatch.AttemptEvent) {
	start := e.Time.Add(-e.Latency)
	if e.Provenance.Purpose == dispatch.PurposeMain && e.AttemptIndex == 0 {
		s.mu.Lock()
		if s.firstAt.IsZero() {
			s.firstAt, s.firstTo = start, e.Target.Model
		}
		s.mu.Unlock()
	}
	kind := trace.SpanKindClient
	if e.Outcome == dispatch.OutcomeSkipped {
		kind = trace.SpanKindInternal // passed over without an upstream call
	}
	attrs := []attribute.KeyValue{
		attrAttempt.Int(e.AttemptIndex), attrOperation.String(e.OperationID), attrPurpose.String(string(e.Provenance.Purpose)),
		attrProvider.String(e.Target.Provider), attrModel.String(e.Target.Model), attrUpstream.String(e.Target.Upstream),
		attrOutcome.String(string(e.Outcome)), attrStream.Bool(e.Stream),
		attrTTFBMs.Float64(float64(e.TTFB.Microseconds()) / 1000),
	}
	if e.Reason != dispatch.ReasonNone {
		attrs = append(attrs, attrReason.String(string(e.Reason)))
	}
	if e.Status != 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(e.Status))
	}
	if e.Usage.Input+e.Usage.Output > 0 {
		attrs = append(attrs, attrInputTokens.Int(e.Usage.Input), attrOutputTokens.Int(e.Usage.Output))
	}
	_, span := s.t.tracer.Start(s.ctx, spanAttempt, trace.WithSpanKind(kind), trace.WithTimestamp(start),
		trace.WithAttributes(attrs...))
	if e.Outcome == dispatch.OutcomeFailed || e.Outcome == dispatch.OutcomeAborted {
		span.SetStatus(codes.Error, string(e.Reason))
	}
	span.End(trace.WithTimestamp(e.Time))
}

// record completes the server span and the routing span from the request
// record. A turn the router did not decide (explicit model, cache hit) gets
// a zero-length routing span where dispatch began (or now, for a cache hit):
// its decision is a catalog lookup with nothing to time.
func (s *turnSpan) record(q analytics.Request) {
	s.span.SetAttributes(attrRouteKind.String(q.RouteKind), attrModel.String(q.ServedModel), attrProvider.String(q.Provider),
		attrFallback.Bool(q.Fallback), attrAttempts.Int(q.Attempts), attrCacheHit.Bool(q.CacheHit), attrStream.Bool(q.Stream))
	s.mu.Lock()
	pending, at, chosen := s.route, s.firstAt, s.firstTo
	s.route = nil
	s.mu.Unlock()
	if q.RouteKind == "" { // failed before a route was settled
		if pending != nil {
			pending.span.End(trace.WithTimestamp(pending.end))
		}
		return
	}
	if chosen == "" {
		chosen = q.ServedModel
	}
	attrs := []attribute.KeyValue{attrRouteKind.String(q.RouteKind)}
	if chosen != "" {
		attrs = append(attrs, attrRouteModel.String(chosen))
	}
	if q.Decision != "" {
		attrs = append(attrs, attrRouteChoice.String(q.Decision))
	}
	if pending != nil {
		pending.span.SetAttributes(attrs...)
		pending.span.End(trace.WithTimestamp(pending.end))
		return
	}
	if at.IsZero() {
		at = time.Now()
	}
	_, span := s.t.tracer.Start(s.ctx, spanRoute, trace.WithTimestamp(at), trace.WithAttributes(attrs...))
	span.End(trace.WithTimestamp(at))
}

// traceSink turns the attempt events of recorded turns into spans, then
// passes every event on. It sits before the asynchronous queue so that a
// turn's events are seen while the turn is still registered; a miss costs
// one map lookup.
type traceSink struct {
	t    *tracing
	next dispatch.Sink
}

func (s traceSink) RecordAttempt(e dispatch.AttemptEvent) {
	if ts := s.t.lookup(e.RequestID); ts != nil {
		ts.attempt(e)
	}
	s.next.RecordAttempt(e)
}

// sink wraps the dispatch sink; with tracing off it returns next.
func (t *tracing) sink(next dispatch.Sink) dispatch.Sink {
	if t == nil {
		return next
	}
	return traceSink{t: t, next: next}
}

// traceRecorder completes recorded turns from their request record.
type traceRecorder struct {
	t    *tracing
	next gateway.Recorder
}

func (r traceRecorder) RecordAttempt(a analytics.Attempt) { r.next.RecordAttempt(a) }

func (r traceRecorder) RecordRequest(q analytics.Request) {
	if ts := r.t.lookup(q.RequestID); ts != nil {
		ts.record(q)
	}
	r.next.RecordRequest(q)
}

// recorder wraps the gateway's recorder; with tracing off it returns next.
func (t *tracing) recorder(next gateway.Recorder) gateway.Recorder {
	if t == nil {
		return next
	}
	return traceRecorder{t: t, next: next}
}

// tracedRouters hands out routers whose decisions become routing spans.
type tracedRouters struct {
	t    *tracing
	next gateway.RouterSource
}

func (x tracedRouters) For(ctx context.Context, orgID string) (gateway.Router, routing.OrgSettings, error) {
	r, st, err := x.next.For(ctx, orgID)
	if err != nil || r == nil {
		return r, st, err
	}
	return tracedRouter{t: x.t, next: r}, st, nil
}

// routers wraps the gateway's router source; with tracing off it returns next.
func (t *tracing) routers(next gateway.RouterSource) gateway.RouterSource {
	if t == nil {
		return next
	}
	return tracedRouters{t: t, next: next}
}

type tracedRouter struct {
	t    *tracing
	next gateway.Router
}

// Decide times the router's decision as the routing span of a recorded turn.
func (r tracedRouter) Decide(ctx context.Context, q routing.Query) (routing.Decision, error) {
	ts := turnFrom(ctx)
	if ts == nil {
		return r.next.Decide(ctx, q)
	}
	_, span := r.t.tracer.Start(ctx, spanRoute, trace.WithAttributes(
		attrRouteAlpha.Float64(q.Alpha), attrEligible.Int(len(q.Eligible))))
	d, err := r.next.Decide(ctx, q)
	end := time.Now()
	if err != nil {
		span.SetStatus(codes.Error, routingFailure(err))
	} else {
		span.SetAttributes(attrRouteModel.String(d.Model), attrRouteBundle.String(d.BundleID+"@"+d.BundleRevision))
	}
	ts.decided(span, end)
	return d, err
}

// routingFailure names a router error by its sentinel: error texts are not
// copied into spans.
func routingFailure(err error) string {
	for _, s := range []error{routing.ErrEmbedTimeout, routing.ErrEmbed, routing.ErrNoEligible, routing.ErrNoBundle,
		routing.ErrEmbedderMismatch, routing.ErrUsage} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return routing.ErrUnavailable.Error()
}

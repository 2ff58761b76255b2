package gateway

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/openaichat"
	"github.com/heddle-gw/heddle/routing"
)

// Deps are the collaborators of a Service.
type Deps struct {
	Catalog  *catalog.Catalog
	Codecs   Codecs
	Executor Executor
	Recorder Recorder
	Logger   *slog.Logger
	// Classify maps errors to the status and code the caller got, for records.
	Classify ErrorCoder
	// Routers gives each organisation its router and routing settings;
	// when nil, Router serves every organisation with default settings.
	Routers RouterSource
	// Router picks models for "auto" and route-all turns; nil (and no
	// Routers) fails them closed.
	Router Router
	// Providers narrows routing to the providers an org can call; nil: all.
	Providers ProviderSet
	// Tenant gives each organisation its own models (SPEC 4); nil: none.
	Tenant TenantModels
	// TenantPrices, when set, remembers the prices of the tenant models
	// turns resolve, for the AttemptSink (share one PriceMemo).
	TenantPrices *PriceMemo
	// DefaultAlpha is the quality/cost dial when the key sets none.
	DefaultAlpha float64
	// BaselineModel prices the savings of "auto" turns.
	BaselineModel string
	// EmbedBytes bounds the user text embedded for routing (0: default).
	EmbedBytes int
	// Pins keep routed sessions on their model; nil disables pinning.
	Pins PinStore
	// Handover configures history summaries on a model switch.
	Handover routing.HandoverConfig
	// Guard enforces rate limits and budgets; nil admits everything.
	Guard Guard
	// Cache is the user-scoped response cache; nil disables it.
	Cache *routing.Cache
	// MaxAttempts bounds a plan's attempts; 0 means the executor's default.
	MaxAttempts int
	// Content keeps opted-in organisations' prompts and answers; nil: never.
	Content ContentKeeper
}

// Service runs turns.
type Service struct {
	d Deps
	// keeping bounds the background content stores in flight (see
	// keepContent); a turn finding it full is not stored.
	keeping chan struct{}
}

// NewService returns a Service; every Deps field but MaxAttempts is required.
func NewService(d Deps) *Service { return &Service{d: d, keeping: make(chan struct{}, maxKeeping)} }

// Codec returns the codec of format f.
func (s *Service) Codec(f llm.Format) llm.Codec { return s.d.Codecs[f] }

// Serve runs one turn and writes the answer to out. An error returned before
// out.Commit was called means nothing was written: the caller answers with an
// error in the caller's format. An error after Commit has already been
// reported to the client inside the stream.
func (s *Service) Serve(ctx context.Context, t *Turn, out Output) error {
	rec := s.newRecord(t)
	err := s.serve(ctx, t, out, rec)
	s.finish(rec, t, err)
	return err
}

func (s *Service) serve(ctx context.Context, t *Turn, out Output, rec *analytics.Request) error {
	if !t.Caller.HasScope("inference") {
		return ErrForbidden
	}
	if s.d.Guard != nil {
		if err := s.d.Guard.Admit(ctx, t.Caller, t.Received); err != nil {
			return err
		}
	}
	codec := s.d.Codecs[t.Format]
	req, err := codec.DecodeRequest(t.Body)
	if err != nil {
		return err
	}
	if t.Format == llm.FormatGemini {
		req.Model, req.Stream = t.PathModel, t.PathStream
	}
	rec.Stream, rec.RequestedModel, rec.User = req.Stream, req.Model, req.User
	org := s.routingFor(ctx, t.Caller.OrgID)
	bypass := org.cacheBypass()
	scope := routing.CacheScope{OrgID: t.Caller.OrgID, KeyID: t.Caller.KeyID, User: req.User, Format: t.Format}
	entry, hit, err := s.d.Cache.Lookup(ctx, routing.LookupInput{Scope: scope, Request: req, Header: t.Header, Bypass: bypass})
	if err != nil {
		s.d.Logger.WarnContext(ctx, "cache lookup failed", "err", err)
	}
	keep := s.keepsContent(ctx, t.Caller)
	if hit.Kind == routing.HitExact || hit.Kind == routing.HitSemantic {
		if err := s.serveCached(t, req, codec, entry, hit, out, rec); err != nil {
			return err
		}
		s.keepContent(t, keep, req, entry.Response)
		return nil
	}
	res, err := s.resolve(ctx, t.Caller, t.Header, req, org)
	if err != nil {
		return err
	}
	meta := dispatch.Meta{
		OrgID: t.Caller.OrgID, KeyID: t.Caller.KeyID, RequestID: t.RequestID,
		OperationID:    t.RequestID + "/0",
		Provenance:     res.provenance,
		IdempotencyKey: t.Header.Get("Idempotency-Key"),
	}
	op := &dispatch.Operation{
		Purpose: dispatch.PurposeMain, Inbound: t.Format, Request: req,
		RawBody: t.Body, Header: passHeaders(t), Stream: req.Stream,
	}
	if !fastPathLossless(t.Format, req) {
		// Re-encode so the upstream is asked for usage (billing needs it)
		// while the client still gets the stream it asked for.
		op.RawBody = nil
	}
	if st := res.session; st != nil && st.handover {
		if next, report := s.handover(ctx, meta, st, req); report.Applied {
			op.Request, op.RawBody = next, nil
		}
	}
	rec.RouteKind, rec.Decision = res.route, res.summary()
	served := Served{RequestID: t.RequestID, Route: res.route, Stream: req.Stream}
	var result *dispatch.Result
	var response *llm.Response
	var body []byte
	if req.Stream {
		result, response, err = s.stream(ctx, meta, res.plan, op, codec, served, out, keep)
	} else {
		result, response, body, err = s.whole(ctx, meta, res.plan, op, codec, served, out)
	}
	s.account(rec, result, res)
	if err != nil {
		return err
	}
	u := result.Usage
	s.advancePin(res.session, result.Served.Model, u.Input+u.CacheRead+u.CacheWrite)
	s.offerCache(routing.StoreInput{Scope: scope, Request: req, Header: t.Header, Bypass: bypass, Keys: &hit.Keys, Status: 200,
		Response: response, Body: body, Model: result.Served.Model, Provider: result.Served.Provider})
	s.keepContent(t, keep, req, response)
	return nil
}

// whole runs a non-streaming turn and writes the answer: the upstream's
// body on the same-format fast path, else the response re-encoded.
func (s *Service) whole(ctx context.Context, meta dispatch.Meta, plan dispatch.Plan, op *dispatch.Operation,
	codec llm.Codec, served Served, out Output) (*dispatch.Result, *llm.Response, []byte, error) {
	result, err := s.d.Executor.Run(ctx, meta, plan, op, nil)
	if err != nil {
		return result, nil, nil, err
	}
	body := result.RawBody
	if body == nil {
		if body, err = codec.EncodeResponse(result.Response); err != nil {
			return result, nil, nil, fmt.Errorf("gateway: encode response: %w", err)
		}
	}
	served.Model, served.Provider, served.Fallback = result.Served.Model, result.Served.Provider, result.FallbackUsed
	out.Commit(served)
	return result, result.Response, body, out.Write(body)
}

// stream runs a streaming turn; it returns the collected response when the
// stream completed (collected for the cache, or when keep says the
// organisation stores content).
func (s *Service) stream(ctx context.Context, meta dispatch.Meta, plan dispatch.Plan, op *dispatch.Operation,
	codec llm.Codec, served Served, out Output, keep bool) (*dispatch.Result, *llm.Response, error) {
	w := &streamWriter{out: out, served: served, inbound: op.Inbound, noRaw: op.RawBody == nil, collect: s.d.Cache != nil || keep}
	w.buf = &bytes.Buffer{}
	w.enc = codec.NewStreamEncoder(w.buf)
	if enc, ok := w.enc.(*openaichat.StreamEncoder); ok {
		enc.IncludeUsage = op.Request.StreamUsage
	}
	res, err := s.d.Executor.Run(ctx, meta, plan, op, w)
	if err != nil && w.committed {
		err = fmt.Errorf("gateway: stream failed after commit: %w", err)
	}
	if err != nil {
		return res, nil, err
	}
	if !w.collect {
		return res, nil, nil
	}
	resp, complete := w.collected.Response()
	if !complete {
		resp = nil
	}
	return res, resp, nil
}

// fastPathLossless reports whether forwarding the caller's body unchanged
// still gives Heddle the usage it bills by: an OpenAI Chat stream reports
// usage only when the caller asked for it.
func fastPathLossless(f llm.Format, req *llm.Request) bool {
	return !(f == llm.FormatChat && req.Stream && !req.StreamUsage)
}

// passHeaders keeps the caller headers an upstream of the same family needs.
func passHeaders(t *Turn) map[string][]string {
	h := map[string][]string{}
	for _, k := range []string{"Anthropic-Version", "Anthropic-Beta"} {
		if v := t.Header.Values(k); len(v) > 0 {
			h[k] = v
		}
	}
	return h
}

// planFor lists the model's bindings in catalog order.
func (s *Service) planFor(m catalog.Model) (dispatch.Plan, error) {
	plan := dispatch.Plan{MaxAttempts: s.d.MaxAttempts}
	for _, b := range m.Bindings {
		p, err := s.d.Catalog.Provider(b.Provider)
		if err != nil {
			continue
		}
		plan.Targets = append(plan.Targets, dispatch.Target{
			Model: m.ID, Provider: p.Name, Upstream: b.Upstream, Format: p.Format, BaseURL: p.BaseURL,
		})
	}
	if len(plan.Targets) == 0 {
		return plan, fmt.Errorf("%w: %s", ErrNoBinding, m.ID)
	}
	return plan, nil
}

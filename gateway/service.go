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
	// Router picks models for "auto" and route-all turns; nil fails them closed.
	Router Router
	// Providers narrows routing to the providers an org can call; nil: all.
	Providers ProviderSet
	// DefaultAlpha is the quality/cost dial when the key sets none.
	DefaultAlpha float64
	// BaselineModel prices the savings of "auto" turns.
	BaselineModel string
	// EmbedBytes bounds the user text embedded for routing (0: default).
	EmbedBytes int
	// MaxAttempts bounds a plan's attempts; 0 means the executor's default.
	MaxAttempts int
}

// Service runs turns.
type Service struct {
	d Deps
}

// NewService returns a Service; every Deps field but MaxAttempts is required.
func NewService(d Deps) *Service { return &Service{d: d} }

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
	codec := s.d.Codecs[t.Format]
	req, err := codec.DecodeRequest(t.Body)
	if err != nil {
		return err
	}
	if t.Format == llm.FormatGemini {
		req.Model, req.Stream = t.PathModel, t.PathStream
	}
	rec.Stream, rec.RequestedModel, rec.User = req.Stream, req.Model, req.User
	res, err := s.resolve(ctx, t.Caller, req)
	if err != nil {
		return err
	}
	rec.RouteKind, rec.Decision = res.route, res.summary()
	plan := res.plan
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
	served := Served{RequestID: t.RequestID, Route: res.route, Stream: req.Stream}
	if req.Stream {
		return s.stream(ctx, meta, plan, op, codec, served, out, rec, res)
	}
	result, err := s.d.Executor.Run(ctx, meta, plan, op, nil)
	s.account(rec, result, res)
	if err != nil {
		return err
	}
	body := result.RawBody
	if body == nil {
		if body, err = codec.EncodeResponse(result.Response); err != nil {
			return fmt.Errorf("gateway: encode response: %w", err)
		}
	}
	served.Model, served.Provider, served.Fallback = result.Served.Model, result.Served.Provider, result.FallbackUsed
	out.Commit(served)
	return out.Write(body)
}

func (s *Service) stream(ctx context.Context, meta dispatch.Meta, plan dispatch.Plan, op *dispatch.Operation,
	codec llm.Codec, served Served, out Output, rec *analytics.Request, r *resolution) error {
	w := &streamWriter{out: out, served: served, inbound: op.Inbound, noRaw: op.RawBody == nil}
	w.buf = &bytes.Buffer{}
	w.enc = codec.NewStreamEncoder(w.buf)
	if enc, ok := w.enc.(*openaichat.StreamEncoder); ok {
		enc.IncludeUsage = op.Request.StreamUsage
	}
	res, err := s.d.Executor.Run(ctx, meta, plan, op, w)
	s.account(rec, res, r)
	if err != nil && !w.committed {
		return err
	}
	if err != nil {
		return fmt.Errorf("gateway: stream failed after commit: %w", err)
	}
	return nil
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

package gateway

import (
	"context"
	"fmt"
	"strings"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
)

// RouteEmbeddings is the route kind of an embeddings request's record.
const RouteEmbeddings = "embeddings"

// Embed serves an embeddings request (t.Body in t.Format: OpenAI's, or
// Gemini's embedContent or batchEmbedContents with t.PathModel) through the embeddings pipeline built by New:
// scope, admit (with a Guard), embed, credits (with Credits), embed
// dispatch; then account, credit settlement (with Credits), settle (with a
// Guard) and record, as for a turn. Errors are as Serve's before Commit.
func (s *Service) Embed(ctx context.Context, t *Turn, out Output) error {
	p := newPass(t, out)
	defer finishOnPanic(context.WithoutCancel(ctx), s.embedEnd, p)
	var err error
	for _, st := range s.embedIn {
		if err = st.run(ctx, p); err != nil {
			break
		}
	}
	for _, f := range s.embedEnd {
		f.finish(context.WithoutCancel(ctx), p, err)
	}
	return err
}

// embedStage validates the request and resolves the embedding model (the
// organisation's aliases and allow and deny lists apply) and the plan of
// its bindings: the caller's body when it is OpenAI's, else re-encoded (see
// embedWire). It fills p.res (baseline: the model itself, so an embedding
// saves nothing) and p.embed for the credits and embed dispatch stages.
type embedStage struct {
	codecs   Codecs
	catalog  *catalog.Catalog
	routers  RouterSource
	attempts int
}

// embedTurn is what the embed stage resolved for the embed dispatch stage.
type embedTurn struct {
	wire  embedWire
	batch bool // the caller sent a batch (Gemini's batchEmbedContents)
}

func (s embedStage) run(ctx context.Context, p *pass) error {
	t := p.t
	dec, ok := s.codecs[t.Format].(llm.EmbeddingRequestDecoder)
	if !ok {
		return fmt.Errorf("%w: format %s has no embeddings", ErrConfig, t.Format)
	}
	er, err := dec.DecodeEmbeddingRequest(t.Body)
	if err != nil {
		return err
	}
	if t.PathModel != "" {
		er.Model = strings.TrimPrefix(t.PathModel, "models/")
	}
	p.rec.RequestedModel = clip(er.Model)
	org := routingFor(ctx, s.routers, t.Caller.OrgID)
	if org.unknown {
		return org.err // the allow and deny lists could not be read
	}
	requested := er.Model
	if target, ok := org.settings.ResolveAlias(requested); ok {
		requested = target
	}
	m, err := s.catalog.Embedding(requested)
	if err != nil {
		return &FieldError{Field: "model", Err: fmt.Errorf("%w: %q as an embedding model", ErrUnknownModel, er.Model)}
	}
	if !allowed(m.ID, org.settings) {
		return &FieldError{Field: "model", Err: fmt.Errorf("%w: %q", ErrModelNotAllowed, m.ID)}
	}
	wire, err := s.wire(t, er, m)
	if err != nil {
		return err
	}
	plan, err := s.plan(m, wire.format)
	if err != nil {
		return err
	}
	p.res = &resolution{
		model: catalog.Model{ID: m.ID, Family: m.Family}, baseline: catalog.Model{ID: m.ID, Price: m.Price},
		route: RouteEmbeddings, plan: plan,
		provenance: dispatch.Provenance{Purpose: dispatch.PurposeMain, PolicyID: RouteEmbeddings},
	}
	p.embed = &embedTurn{wire: wire, batch: er.Batch}
	p.rec.RouteKind, p.rec.Decision = RouteEmbeddings, RouteEmbeddings+":"+m.ID
	return nil
}

// embedDispatchStage sends the resolved embeddings request over the plan
// through the Executor, with retries and failover as for a turn (on the
// platform credentials the credits stage reserved for), and writes the
// answer in the caller's format. It fills p.result for the account stage.
type embedDispatchStage struct{ executor Executor }

func (s embedDispatchStage) run(ctx context.Context, p *pass) error {
	t, e := p.t, p.embed
	meta := dispatch.Meta{
		OrgID: t.Caller.OrgID, KeyID: t.Caller.KeyID, RequestID: t.RequestID, OperationID: t.RequestID + "/0",
		Provenance: p.res.provenance, IdempotencyKey: t.Header.Get("Idempotency-Key"),
	}
	res, err := s.executor.Run(withPlatform(ctx, p.credit.use), meta, p.res.plan, &dispatch.Operation{
		Purpose: dispatch.PurposeMain, Inbound: e.wire.format, RawBody: e.wire.body, Endpoint: dispatch.EndpointEmbeddings,
	}, nil)
	p.result = res
	if err != nil {
		return fmt.Errorf("gateway: embeddings: %w", err)
	}
	if res.RawBody == nil {
		return fmt.Errorf("gateway: embeddings: %w", dispatch.ErrBadOperation)
	}
	answer, err := e.wire.answer(res.RawBody, e.batch)
	if err != nil {
		return fmt.Errorf("gateway: embeddings: %w", err)
	}
	p.body = answer
	p.out.Commit(Served{
		RequestID: t.RequestID, Model: res.Served.Model, Provider: res.Served.Provider,
		Route: RouteExplicit, Fallback: res.FallbackUsed,
	})
	return p.out.Write(answer)
}

// embedWire is how an embeddings request goes upstream: the caller's body
// in the caller's format when upstreams speak it (OpenAI's), else
// re-encoded in OpenAI's format, whose answer is re-encoded for the caller.
type embedWire struct {
	format llm.Format
	body   []byte
	up     llm.EmbeddingCodec   // set when re-encoded
	enc    llm.EmbeddingEncoder // the caller's encoder when re-encoded
}

func (s embedStage) wire(t *Turn, er *llm.EmbeddingRequest, m catalog.EmbeddingModel) (embedWire, error) {
	if _, same := s.codecs[t.Format].(llm.EmbeddingCodec); same {
		return embedWire{format: t.Format, body: t.Body}, nil
	}
	up, ok := s.codecs[llm.FormatChat].(llm.EmbeddingCodec)
	enc, encodes := s.codecs[t.Format].(llm.EmbeddingEncoder)
	if !ok || !encodes {
		return embedWire{}, fmt.Errorf("%w: no embeddings codec for %s", ErrConfig, t.Format)
	}
	req := *er
	req.Model = m.ID // replaced by each target's upstream id
	body, err := up.EncodeEmbeddingRequest(&req)
	if err != nil {
		return embedWire{}, err
	}
	return embedWire{format: llm.FormatChat, body: body, up: up, enc: enc}, nil
}

// answer is the upstream's answer in the caller's format.
func (w embedWire) answer(raw []byte, batch bool) ([]byte, error) {
	if w.enc == nil {
		return raw, nil
	}
	e, err := w.up.DecodeEmbeddings(raw)
	if err != nil {
		return nil, err
	}
	e.Batch = batch
	return w.enc.EncodeEmbeddings(e)
}

// plan lists m's bindings whose provider speaks format f.
func (s embedStage) plan(m catalog.EmbeddingModel, f llm.Format) (dispatch.Plan, error) {
	plan := dispatch.Plan{MaxAttempts: s.attempts}
	for _, b := range m.Bindings {
		pr, err := s.catalog.Provider(b.Provider)
		if err != nil || pr.Format != f {
			continue
		}
		plan.Targets = append(plan.Targets, dispatch.Target{
			Model: m.ID, Provider: pr.Name, Upstream: b.Upstream, Format: pr.Format, BaseURL: pr.BaseURL,
		})
	}
	if len(plan.Targets) == 0 {
		return plan, fmt.Errorf("%w: %s for %s", ErrNoBinding, m.ID, f)
	}
	return plan, nil
}

package gateway

import (
	"bytes"
	"context"
	"fmt"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
)

// dispatchStage sends the turn upstream through the Executor (the only way
// out) and writes the answer: whole, or as a stream (see streamWriter).
type dispatchStage struct{ executor Executor }

func (s dispatchStage) run(ctx context.Context, p *pass) error {
	t, req, res := p.t, p.req, p.res
	ctx = withPlatform(ctx, p.credit.use)
	op := &dispatch.Operation{
		Purpose: dispatch.PurposeMain, Inbound: t.Format, Request: p.upstream(),
		RawBody: t.Body, Header: passHeaders(t), Stream: req.Stream,
	}
	if !fastPathLossless(t.Format, req) || p.send != nil {
		// Re-encode so the upstream is asked for usage (billing needs it)
		// while the client still gets the stream it asked for; a handover
		// changed the request.
		op.RawBody = nil
	}
	p.rec.RouteKind, p.rec.Decision = res.route, res.summary()
	served := Served{RequestID: t.RequestID, Route: res.route, Stream: req.Stream}
	var err error
	if req.Stream {
		p.result, p.response, err = s.stream(ctx, turnMeta(p), res.plan, op, p.codec, served, p.out, p.collect)
	} else {
		p.result, p.response, p.body, err = s.whole(ctx, turnMeta(p), res.plan, op, p.codec, served, p.out)
	}
	return err
}

// turnMeta is the dispatch identity of the turn's main operation.
func turnMeta(p *pass) dispatch.Meta {
	return dispatch.Meta{
		OrgID: p.t.Caller.OrgID, KeyID: p.t.Caller.KeyID, RequestID: p.t.RequestID,
		OperationID:    p.t.RequestID + "/0",
		Provenance:     p.res.provenance,
		IdempotencyKey: p.t.Header.Get("Idempotency-Key"),
		OrgConcurrency: p.t.Caller.Limits.MaxConcurrency,
	}
}

// whole runs a non-streaming turn and writes the answer: the upstream's
// body on the same-format fast path, else the response re-encoded.
func (s dispatchStage) whole(ctx context.Context, meta dispatch.Meta, plan dispatch.Plan, op *dispatch.Operation,
	codec llm.Codec, served Served, out Output) (*dispatch.Result, *llm.Response, []byte, error) {
	result, err := s.executor.Run(ctx, meta, plan, op, nil)
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
// stream completed and collect asked for it (for the cache, or for an
// organisation that stores content).
func (s dispatchStage) stream(ctx context.Context, meta dispatch.Meta, plan dispatch.Plan, op *dispatch.Operation,
	codec llm.Codec, served Served, out Output, collect bool) (*dispatch.Result, *llm.Response, error) {
	w := &streamWriter{out: out, served: served, inbound: op.Inbound, noRaw: op.RawBody == nil, collect: collect}
	w.buf = &bytes.Buffer{}
	w.enc = newStreamEncoder(codec, w.buf, op.Request)
	res, err := s.executor.Run(ctx, meta, plan, op, w)
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

// newStreamEncoder is codec's stream encoder for req's caller, told whether
// the caller asked for usage where the format makes that optional.
func newStreamEncoder(codec llm.Codec, buf *bytes.Buffer, req *llm.Request) llm.StreamEncoder {
	enc := codec.NewStreamEncoder(buf)
	if u, ok := enc.(llm.UsageIncluder); ok {
		u.SetIncludeUsage(req.StreamUsage)
	}
	return enc
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

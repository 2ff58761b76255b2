package dispatch

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/heddle-gw/heddle/llm"
)

var errTooLarge = errors.New("dispatch: upstream answer exceeds MaxResponseBytes")

// buffer reads and decodes a non-streaming answer.
func (w *walk) buffer(actx context.Context, t Target, body io.Reader, a *attempt) {
	max := w.e.cfg.MaxResponseBytes
	raw, err := io.ReadAll(io.LimitReader(body, max+1))
	if err != nil {
		f := classify(w.ctx, actx, err)
		a.fail = &f
		return
	}
	if int64(len(raw)) > max {
		a.fail = &failure{reason: ReasonTransport, err: errTooLarge}
		return
	}
	if w.op.Endpoint != EndpointGenerate {
		// Not a model answer: handed back as the upstream sent it.
		a.resp, a.raw = &llm.Response{}, raw
		if w.op.Endpoint == EndpointEmbeddings {
			a.usage, err = embeddingUsage(w.e.codecs[t.Format], raw)
			if err != nil {
				// Unbillable: fail the attempt rather than serve it free.
				a.fail = &failure{reason: ReasonTransport, err: err}
			}
		}
		return
	}
	resp, err := w.e.codecs[t.Format].DecodeResponse(raw)
	if err != nil {
		a.fail = &failure{reason: ReasonTransport, err: fmt.Errorf("dispatch: decode %s answer: %w", t.Format, err)}
		return
	}
	a.resp = resp
	a.usage = resp.Usage
	if t.Format == w.op.Inbound {
		a.raw = raw
	}
}

// embeddingUsage reads the usage of an embeddings answer through the
// codec's llm.EmbeddingCodec ability.
func embeddingUsage(c llm.Codec, raw []byte) (llm.Usage, error) {
	ec, ok := c.(llm.EmbeddingCodec)
	if !ok {
		return llm.Usage{}, fmt.Errorf("%w: format %s has no embeddings", ErrBadOperation, c.Format())
	}
	u, err := ec.EmbeddingUsage(raw)
	if err != nil {
		return llm.Usage{}, fmt.Errorf("dispatch: embeddings answer: %w", err)
	}
	return u, nil
}

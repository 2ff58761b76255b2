package dispatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/heddle-gw/heddle/llm"
)

var errTooLarge = errors.New("dispatch: upstream answer exceeds MaxResponseBytes")

// buffer reads and decodes a non-streaming answer whose length the upstream
// announced as size (its Content-Length; -1 when it did not).
func (w *walk) buffer(actx context.Context, t Target, body io.Reader, size int64, a *attempt) {
	max := w.e.cfg.MaxResponseBytes
	raw, err := readAnswer(body, max, size)
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

// maxPresize bounds the buffer an announced size allocates before any of
// the answer arrived: the size is the upstream's word (a tenant's own base
// URL can announce MaxResponseBytes and send nothing), so past it the buffer
// grows only as bytes arrive.
const maxPresize = 1 << 20

// readAnswer reads r to its end but at most limit+1 bytes (one past limit,
// so the caller can tell a too-large answer). An announced size within the
// limit sizes the buffer once (one byte more, so the end is seen without a
// grow; at most maxPresize) instead of growing it from io.ReadAll's 512
// bytes; a size that turns out wrong only costs growing.
func readAnswer(r io.Reader, limit, size int64) ([]byte, error) {
	if size < 0 || size > limit {
		return io.ReadAll(io.LimitReader(r, limit+1))
	}
	b := make([]byte, 0, min(size, maxPresize)+1)
	left := limit + 1
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // longer than announced
		}
		p := b[len(b):cap(b)]
		if int64(len(p)) > left {
			p = p[:left]
		}
		n, err := r.Read(p)
		b, left = b[:len(b)+n], left-int64(n)
		if err == io.EOF || left == 0 {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// contentLength is the length h announces, or -1 when it announces none
// (or one that does not parse).
func contentLength(h http.Header) int64 {
	v := h.Get("Content-Length")
	if v == "" {
		return -1
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

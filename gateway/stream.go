package gateway

import (
	"bytes"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
)

// streamWriter turns canonical events from the executor into the caller's
// SSE bytes. When the served upstream speaks the caller's format, frames are
// forwarded byte for byte (Event.Raw); otherwise they are re-encoded.
type streamWriter struct {
	out       Output
	served    Served
	inbound   llm.Format
	same      bool
	noRaw     bool // re-encode even a same-format stream (see fastPathLossless)
	committed bool
	enc       llm.StreamEncoder
	buf       *bytes.Buffer
	collect   bool          // keep the whole answer (for the cache or stored content)
	collected llm.Collector // the whole answer
}

var (
	_ dispatch.StreamWriter = (*streamWriter)(nil)
	_ dispatch.Committer    = (*streamWriter)(nil)
)

// Commit sends the response head for the served target.
func (w *streamWriter) Commit(t dispatch.Target, fallback bool) {
	w.committed = true
	w.same = t.Format == w.inbound && !w.noRaw
	w.served.Model, w.served.Provider, w.served.Fallback = t.Model, t.Provider, fallback
	w.out.Commit(w.served)
}

// Write encodes one event.
func (w *streamWriter) Write(e llm.Event) error {
	if w.collect {
		w.collected.Add(e)
	}
	if w.same {
		switch {
		case e.Raw != nil:
			return w.out.Write(e.Raw)
		case e.Type != llm.EventError:
			// Part of a frame already forwarded with an earlier event.
			return nil
		}
	}
	w.buf.Reset()
	if err := w.enc.Encode(e); err != nil {
		return err
	}
	if w.buf.Len() == 0 {
		return nil
	}
	return w.out.Write(w.buf.Bytes())
}

// Flush pushes written bytes to the client.
func (w *streamWriter) Flush() error { return w.out.Flush() }

package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/sse"

	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// streamDecoder turns a streamGenerateContent?alt=sse stream into canonical
// events. Every chunk is a whole GenerateContentResponse holding the next
// parts; blocks are synthesized from changes of part kind, and the message
// ends at EOF with the last finishReason and usage seen. A chunk that yields
// no event (an empty closing part) travels in the Raw of the next event, so
// the Raw of all events rebuilds the stream byte for byte.
type streamDecoder struct {
	src      *sse.Reader
	queue    []llm.Event
	raw      []byte // frames not yet attached to an event
	frame    int
	started  bool
	finished bool
	cur      llm.PartType // kind of the open block, "" when none
	next     int          // next block index
	ids      *callIDs
	sawCall  bool
	reason   string
	usage    *wireUsage
}

func newStreamDecoder(r io.Reader) *streamDecoder {
	return &streamDecoder{src: sse.NewReader(r)}
}

// Next returns the next canonical event; io.EOF after done, ErrTruncated if
// the stream ended before any finishReason.
func (d *streamDecoder) Next() (llm.Event, error) {
	for len(d.queue) == 0 {
		if d.finished {
			return llm.Event{}, io.EOF
		}
		f, err := d.src.Next()
		switch {
		case errors.Is(err, io.EOF):
			d.finished = true
			if d.reason == "" {
				return llm.Event{}, ErrTruncated
			}
			d.end()
		case err != nil:
			d.finished = true
			return llm.Event{}, fmt.Errorf("gemini: reading stream: %w", err)
		default:
			d.frame++
			d.raw = append(d.raw, f.Raw...)
			if err := d.handle(f); err != nil {
				d.finished = true
				return llm.Event{}, err
			}
		}
		if len(d.queue) > 0 {
			d.queue[0].Raw, d.raw = d.raw, nil
		}
	}
	e := d.queue[0]
	d.queue = d.queue[1:]
	return e, nil
}

func (d *streamDecoder) emit(e llm.Event) { d.queue = append(d.queue, e) }

// handle turns one chunk into events.
func (d *streamDecoder) handle(f sse.Frame) error {
	if f.IsDone() {
		return nil
	}
	var w wireResponse
	if err := json.Unmarshal(f.Data, &w); err != nil {
		return fmt.Errorf("gemini: stream frame %d: %w: %v", d.frame, llm.ErrMalformed, err)
	}
	if w.Error != nil {
		d.emit(llm.Event{Type: llm.EventError, ErrMessage: or(w.Error.Message, "the upstream stream failed"), ErrCode: w.Error.Status})
		d.finished = true
		return nil
	}
	if !d.started {
		d.started = true
		d.ids = responseCallIDs(w.ResponseID)
		e := llm.Event{Type: llm.EventMessageStart, ID: w.ResponseID, Model: w.ModelVersion}
		if w.UsageMetadata != nil {
			u := usageOf(w.UsageMetadata)
			e.Usage = &llm.Usage{Input: u.Input, CacheRead: u.CacheRead}
		}
		d.emit(e)
	}
	if w.UsageMetadata != nil {
		d.usage = w.UsageMetadata
	}
	if len(w.Candidates) == 0 {
		if w.PromptFeedback != nil && w.PromptFeedback.BlockReason != "" {
			d.reason = "SAFETY"
		}
		return nil
	}
	cand := w.Candidates[0]
	if cand.Content != nil {
		for j, raw := range cand.Content.Parts {
			p, ok, err := decodePart(raw, wirejson.Index("candidates[0].content.parts", j), d.ids)
			if err != nil {
				return fmt.Errorf("gemini: stream frame %d: %w", d.frame, err)
			}
			if ok {
				d.part(p)
			}
		}
	}
	if cand.FinishReason != "" {
		d.reason = cand.FinishReason
	}
	return nil
}

// part emits the events of one streamed part.
func (d *streamDecoder) part(p llm.Part) {
	switch p.Type {
	case llm.PartText:
		if p.Text == "" {
			return // a bare signature on text: nothing to show
		}
		d.open(llm.PartText, &llm.Part{Type: llm.PartText})
		d.emit(llm.Event{Type: llm.EventTextDelta, Index: d.next - 1, Text: p.Text})
	case llm.PartThinking:
		d.open(llm.PartThinking, &llm.Part{Type: llm.PartThinking, Family: family})
		if p.Text != "" {
			d.emit(llm.Event{Type: llm.EventThinkDelta, Index: d.next - 1, Text: p.Text})
		}
		if p.Signature != "" {
			d.emit(llm.Event{Type: llm.EventThinkDelta, Index: d.next - 1, Signature: p.Signature})
		}
	case llm.PartToolCall:
		d.sawCall = true
		d.close()
		block := p
		block.Arguments = ""
		d.open(llm.PartToolCall, &block)
		d.emit(llm.Event{Type: llm.EventToolDelta, Index: d.next - 1, Text: p.Arguments})
		d.close()
	}
}

// open starts a block of kind unless one is open already.
func (d *streamDecoder) open(kind llm.PartType, block *llm.Part) {
	if d.cur == kind && kind != llm.PartToolCall {
		return
	}
	d.close()
	d.cur = kind
	d.emit(llm.Event{Type: llm.EventBlockStart, Index: d.next, Block: block})
	d.next++
}

// close stops the open block, if any.
func (d *streamDecoder) close() {
	if d.cur == "" {
		return
	}
	d.cur = ""
	d.emit(llm.Event{Type: llm.EventBlockStop, Index: d.next - 1})
}

// end emits the message end at EOF.
func (d *streamDecoder) end() {
	d.close()
	u := usageOf(d.usage)
	d.emit(llm.Event{Type: llm.EventMessageDelta, StopReason: stopOf(d.reason, d.sawCall), Usage: &u})
	d.emit(llm.Event{Type: llm.EventDone})
}

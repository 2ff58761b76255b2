package responses

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/sse"

	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// wireEvent is one Responses stream event (the JSON data of an SSE frame).
type wireEvent struct {
	Type         string          `json:"type"`
	Response     *wireResponse   `json:"response"`
	OutputIndex  int             `json:"output_index"`
	ContentIndex int             `json:"content_index"`
	SummaryIndex int             `json:"summary_index"`
	Item         *wireItem       `json:"item"`
	Part         *wirePart       `json:"part"`
	Delta        string          `json:"delta"`
	Text         string          `json:"text"`
	Refusal      string          `json:"refusal"`
	Arguments    string          `json:"arguments"`
	Code         json.RawMessage `json:"code"`
	Message      string          `json:"message"`
}

// blockKey identifies an upstream block: a content part of a message item,
// or (content -1) a whole function_call or reasoning item.
type blockKey struct{ output, content int }

// openBlock is a canonical block started and not yet stopped.
type openBlock struct {
	index    int
	kind     llm.PartType
	streamed bool // a delta was emitted
}

// streamDecoder turns a Responses SSE stream into canonical events. A frame
// that yields no event (response.in_progress, content_part.added, unknown
// events) travels in the Raw of the next event, so the Raw of all events
// rebuilds the stream byte for byte up to its terminal event.
type streamDecoder struct {
	src      *sse.Reader
	queue    []llm.Event
	raw      []byte // frames not yet attached to an event
	frame    int
	started  bool
	finished bool
	next     int // next canonical block index
	open     map[blockKey]*openBlock
	seen     map[int]bool // output items that had a block
	itemIDs  map[int]string
	sawTool  bool
	refused  bool
}

func newStreamDecoder(r io.Reader) *streamDecoder {
	return &streamDecoder{src: sse.NewReader(r), open: map[blockKey]*openBlock{}, seen: map[int]bool{}, itemIDs: map[int]string{}}
}

// Next returns the next canonical event, io.EOF after a terminal event, or
// ErrTruncated when the stream ends before one.
func (d *streamDecoder) Next() (llm.Event, error) {
	for len(d.queue) == 0 {
		if d.finished {
			return llm.Event{}, io.EOF
		}
		f, err := d.src.Next()
		if errors.Is(err, io.EOF) {
			d.finished = true
			return llm.Event{}, ErrTruncated
		}
		if err != nil {
			d.finished = true
			return llm.Event{}, fmt.Errorf("responses: reading stream: %w", err)
		}
		d.frame++
		d.raw = append(d.raw, f.Raw...)
		if err := d.handle(f); err != nil {
			d.finished = true
			return llm.Event{}, err
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

// handle turns one frame into zero or more queued events.
func (d *streamDecoder) handle(f sse.Frame) error {
	if f.IsDone() {
		return nil
	}
	var ev wireEvent
	if err := json.Unmarshal(f.Data, &ev); err != nil {
		return fmt.Errorf("responses: stream frame %d: %w: %v", d.frame, llm.ErrMalformed, err)
	}
	if ev.Type == "" {
		ev.Type = f.Event
	}
	switch ev.Type {
	case "response.created", "response.in_progress":
		d.start(ev.Response)
	case "response.output_item.added":
		d.itemAdded(&ev)
	case "response.content_part.added":
		if ev.Part != nil && (ev.Part.Type == "output_text" || ev.Part.Type == "refusal") {
			d.block(blockKey{ev.OutputIndex, ev.ContentIndex}, &llm.Part{Type: llm.PartText})
		}
	case "response.output_text.delta", "response.refusal.delta":
		d.refused = d.refused || ev.Type == "response.refusal.delta"
		d.delta(blockKey{ev.OutputIndex, ev.ContentIndex}, llm.PartText, ev.Delta)
	case "response.output_text.done":
		d.fill(blockKey{ev.OutputIndex, ev.ContentIndex}, llm.PartText, ev.Text)
	case "response.refusal.done":
		d.refused = true
		d.fill(blockKey{ev.OutputIndex, ev.ContentIndex}, llm.PartText, ev.Refusal)
	case "response.content_part.done":
		d.stop(blockKey{ev.OutputIndex, ev.ContentIndex})
	case "response.function_call_arguments.delta":
		d.delta(blockKey{ev.OutputIndex, -1}, llm.PartToolCall, ev.Delta)
	case "response.function_call_arguments.done":
		d.fill(blockKey{ev.OutputIndex, -1}, llm.PartToolCall, ev.Arguments)
	case "response.reasoning_summary_part.added":
		k := blockKey{ev.OutputIndex, -1}
		if b := d.open[k]; b != nil && b.streamed && ev.SummaryIndex > 0 {
			d.delta(k, llm.PartThinking, "\n\n")
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		d.delta(blockKey{ev.OutputIndex, -1}, llm.PartThinking, ev.Delta)
	case "response.reasoning_summary_text.done", "response.reasoning_text.done":
		d.fill(blockKey{ev.OutputIndex, -1}, llm.PartThinking, ev.Text)
	case "response.output_item.done":
		d.itemDone(&ev)
	case "response.completed", "response.incomplete":
		d.complete(ev.Response)
	case "response.failed":
		msg, code := "the upstream response failed", ""
		if ev.Response != nil && ev.Response.Error != nil {
			msg, code = ev.Response.Error.Message, rawString(ev.Response.Error.Code)
		}
		d.fail(msg, code)
	case "error":
		d.fail(ev.Message, rawString(ev.Code))
	}
	return nil
}

// start emits message_start once.
func (d *streamDecoder) start(r *wireResponse) {
	if d.started {
		return
	}
	d.started = true
	e := llm.Event{Type: llm.EventMessageStart}
	if r != nil {
		e.ID, e.Model = r.ID, r.Model
	}
	d.emit(e)
}

// block starts a canonical block for k unless one is open.
func (d *streamDecoder) block(k blockKey, p *llm.Part) *openBlock {
	if b := d.open[k]; b != nil {
		return b
	}
	d.start(nil)
	b := &openBlock{index: d.next, kind: p.Type}
	d.next++
	d.open[k] = b
	d.seen[k.output] = true
	d.emit(llm.Event{Type: llm.EventBlockStart, Index: b.index, Block: p})
	return b
}

// delta emits a delta into the block for k, starting one if needed.
func (d *streamDecoder) delta(k blockKey, kind llm.PartType, text string) {
	if text == "" {
		return
	}
	b := d.open[k]
	if b == nil {
		p := &llm.Part{Type: kind}
		if kind == llm.PartThinking {
			p.ID, p.Family = d.itemIDs[k.output], family
		}
		b = d.block(k, p)
	}
	b.streamed = true
	typ := llm.EventTextDelta
	switch b.kind {
	case llm.PartToolCall:
		typ = llm.EventToolDelta
	case llm.PartThinking:
		typ = llm.EventThinkDelta
	}
	d.emit(llm.Event{Type: typ, Index: b.index, Text: text})
}

// fill emits a done event's full text when no delta carried it.
func (d *streamDecoder) fill(k blockKey, kind llm.PartType, full string) {
	if b := d.open[k]; b != nil && b.streamed {
		return
	}
	d.delta(k, kind, full)
}

// stop closes the block for k, if open.
func (d *streamDecoder) stop(k blockKey) {
	b := d.open[k]
	if b == nil {
		return
	}
	delete(d.open, k)
	d.emit(llm.Event{Type: llm.EventBlockStop, Index: b.index})
}

// stopAll closes every open block in index order; with output >= 0 only the
// blocks of that output item.
func (d *streamDecoder) stopAll(output int) {
	keys := make([]blockKey, 0, len(d.open))
	for k := range d.open {
		if output < 0 || k.output == output {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return d.open[keys[i]].index < d.open[keys[j]].index })
	for _, k := range keys {
		d.stop(k)
	}
}

// rawString renders a JSON string or number code as text.
func rawString(raw json.RawMessage) string {
	if wirejson.IsNull(raw) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

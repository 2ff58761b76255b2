package openaichat

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
	"github.com/heddle-gw/heddle/llm/sse"
)

type inChunk struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Choices []inChunkChoice `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   *inError        `json:"error"`
}

type inError struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

type inChunkChoice struct {
	Index        int          `json:"index"`
	Delta        inChunkDelta `json:"delta"`
	FinishReason *string      `json:"finish_reason"`
}

type inChunkDelta struct {
	Content          *string           `json:"content"`
	Refusal          *string           `json:"refusal"`
	ReasoningContent *string           `json:"reasoning_content"`
	Reasoning        *string           `json:"reasoning"`
	ToolCalls        []inChunkToolCall `json:"tool_calls"`
}

type inChunkToolCall struct {
	Index    int        `json:"index"`
	ID       string     `json:"id"`
	Function inFunction `json:"function"`
}

// streamDecoder turns a Chat Completions SSE stream into canonical events.
// Chunks have no block boundaries, so it synthesizes them: a text or
// reasoning block while such deltas arrive, one block per tool call index.
type streamDecoder struct {
	c       *Codec
	r       *sse.Reader
	queue   []llm.Event // events to return, from queue[qi]
	qi      int
	pending []byte // frames that produced no event, forwarded with the next one
	out     []llm.Event
	fast    chunkReader
	ch      inChunk // the chunk being read, reused

	started   bool
	next      int          // next canonical block index
	open      int          // canonical index of the open block, -1 for none
	openKind  llm.PartType // kind of the open block
	tools     map[int]int  // tool call index -> canonical block index
	stop      llm.StopReason
	finished  bool // a finish_reason was seen
	usage     *llm.Usage
	deltaSent bool
	ended     bool
	err       error
}

func newStreamDecoder(c *Codec, r io.Reader) *streamDecoder {
	return &streamDecoder{c: c, r: sse.NewReader(r), open: -1, tools: map[int]int{}}
}

// Next returns the next canonical event: io.EOF after [DONE] (or after the
// stream closed once a finish_reason was seen), ErrStreamTruncated when it
// ends before, an error wrapping llm.ErrMalformed for a bad chunk.
func (d *streamDecoder) Next() (llm.Event, error) {
	for d.qi == len(d.queue) {
		if d.err != nil {
			return llm.Event{}, d.err
		}
		if d.ended {
			d.err = io.EOF
			continue
		}
		f, err := d.r.Next()
		switch {
		case err == io.EOF && d.finished:
			d.finish()
			d.ended = true
		case err == io.EOF:
			d.err = ErrStreamTruncated
			continue
		case err != nil:
			d.err = fmt.Errorf("openaichat: read stream: %w", err)
			continue
		case f.IsDone():
			d.finish()
			d.ended = true
		default:
			if err := d.chunk(f.Data); err != nil {
				d.err = err
				continue
			}
		}
		if len(d.out) == 0 {
			d.pending = append(d.pending, f.Raw...)
			continue
		}
		d.out[0].Raw = f.Raw
		if len(d.pending) > 0 {
			d.out[0].Raw = append(d.pending, f.Raw...)
			d.pending = nil
		}
		// The events went out by value: the spent queue's array is free.
		clear(d.queue)
		d.queue, d.out, d.qi = d.out, d.queue[:0], 0
	}
	e := d.queue[d.qi]
	d.qi++
	return e, nil
}

func (d *streamDecoder) emit(e llm.Event) { d.out = append(d.out, e) }

// chunk reads one chunk, in one pass when chunkReader can (the common
// shapes), with encoding/json otherwise.
func (d *streamDecoder) chunk(data []byte) error {
	ch := &d.ch
	*ch = inChunk{}
	if !d.fast.read(data, ch, !d.started) {
		*ch = inChunk{}
		if err := json.Unmarshal(data, ch); err != nil {
			return malformed("chunk", err)
		}
	}
	if ch.Error != nil {
		d.ended = true
		code := ch.Error.Type
		if !wirejson.IsNull(ch.Error.Code) {
			var s string
			if json.Unmarshal(ch.Error.Code, &s) == nil && s != "" {
				code = s
			}
		}
		d.emit(llm.Event{Type: llm.EventError, ErrMessage: ch.Error.Message, ErrCode: code})
		return nil
	}
	if !d.started {
		d.started = true
		d.emit(llm.Event{Type: llm.EventMessageStart, ID: ch.ID, Model: ch.Model})
	}
	for _, c := range ch.Choices {
		if c.Index == 0 {
			d.choice(c)
		}
	}
	if ch.Usage != nil {
		u := usageFromWire(*ch.Usage)
		d.usage = &u
	}
	if d.finished && d.usage != nil && !d.deltaSent {
		d.messageDelta()
	}
	return nil
}

func (d *streamDecoder) choice(c inChunkChoice) {
	delta := c.Delta
	if s := firstNonEmpty(delta.ReasoningContent, delta.Reasoning); s != "" {
		idx := d.ensure(llm.PartThinking)
		d.emit(llm.Event{Type: llm.EventThinkDelta, Index: idx, Text: s})
	}
	if s := firstNonEmpty(delta.Content, delta.Refusal); s != "" {
		idx := d.ensure(llm.PartText)
		d.emit(llm.Event{Type: llm.EventTextDelta, Index: idx, Text: s})
	}
	for _, tc := range delta.ToolCalls {
		idx, ok := d.tools[tc.Index]
		if !ok {
			d.closeOpen()
			idx = d.next
			d.next++
			d.tools[tc.Index] = idx
			d.open, d.openKind = idx, llm.PartToolCall
			id := tc.ID
			if id == "" {
				id = d.c.id("call_")
			}
			d.emit(llm.Event{Type: llm.EventBlockStart, Index: idx, Block: &llm.Part{
				Type: llm.PartToolCall, ID: id, Name: tc.Function.Name,
			}})
		}
		if tc.Function.Arguments != "" {
			d.emit(llm.Event{Type: llm.EventToolDelta, Index: idx, Text: tc.Function.Arguments})
		}
	}
	if c.FinishReason != nil && *c.FinishReason != "" {
		d.closeOpen()
		d.stop = stopFromWire(*c.FinishReason)
		d.finished = true
	}
}

// ensure returns the index of an open block of kind, starting one (and
// closing the open one) when needed.
func (d *streamDecoder) ensure(kind llm.PartType) int {
	if d.open >= 0 && d.openKind == kind {
		return d.open
	}
	d.closeOpen()
	idx := d.next
	d.next++
	d.open, d.openKind = idx, kind
	d.emit(llm.Event{Type: llm.EventBlockStart, Index: idx, Block: &llm.Part{Type: kind}})
	return idx
}

func (d *streamDecoder) closeOpen() {
	if d.open < 0 {
		return
	}
	d.emit(llm.Event{Type: llm.EventBlockStop, Index: d.open})
	d.open = -1
}

func (d *streamDecoder) messageDelta() {
	d.deltaSent = true
	e := llm.Event{Type: llm.EventMessageDelta, StopReason: d.stop}
	if d.usage != nil {
		u := *d.usage
		e.Usage = &u
	}
	d.emit(e)
}

// finish ends the message at [DONE] or at the end of a finished stream.
func (d *streamDecoder) finish() {
	if !d.started {
		d.started = true
		d.emit(llm.Event{Type: llm.EventMessageStart})
	}
	d.closeOpen()
	if !d.deltaSent {
		if d.stop == "" {
			d.stop = llm.StopEnd
		}
		d.messageDelta()
	}
	d.emit(llm.Event{Type: llm.EventDone})
}

package anthropic

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/sse"
)

// inEvent is the union of every stream event's members.
type inEvent struct {
	Type         string          `json:"type"`
	Message      *wireResponse   `json:"message"`
	Index        int             `json:"index"`
	ContentBlock json.RawMessage `json:"content_block"`
	Delta        *inDelta        `json:"delta"`
	Usage        *inDeltaUsage   `json:"usage"`
	Error        *errorDetail    `json:"error"`
}

type inDelta struct {
	Type         string  `json:"type"`
	Text         string  `json:"text"`
	PartialJSON  string  `json:"partial_json"`
	Thinking     string  `json:"thinking"`
	Signature    string  `json:"signature"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

// inDeltaUsage is message_delta's cumulative usage; absent members keep the
// values message_start gave.
type inDeltaUsage struct {
	InputTokens              *int `json:"input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
}

// streamDecoder turns a Messages SSE stream into canonical events.
type streamDecoder struct {
	r       *sse.Reader
	queue   []llm.Event
	pending []byte // frames that produced no event, forwarded with the next one
	usage   llm.Usage
	skipped map[int]bool // blocks of server-side tools, left out
	ended   bool         // message_stop or error seen
	err     error
}

func newStreamDecoder(r io.Reader) *streamDecoder {
	return &streamDecoder{r: sse.NewReader(r)}
}

// Next returns the next canonical event. It returns io.EOF after
// message_stop (or an error event), ErrStreamTruncated when the stream ends
// before either, and an error wrapping llm.ErrMalformed for a bad frame.
func (d *streamDecoder) Next() (llm.Event, error) {
	for len(d.queue) == 0 {
		if d.err != nil {
			return llm.Event{}, d.err
		}
		if d.ended {
			d.err = io.EOF
			continue
		}
		f, err := d.r.Next()
		switch {
		case err == io.EOF:
			d.err = ErrStreamTruncated
			continue
		case err != nil:
			d.err = fmt.Errorf("anthropic: read stream: %w", err)
			continue
		}
		evs, err := d.decodeFrame(f.Data)
		if err != nil {
			d.err = err
			continue
		}
		if len(evs) == 0 {
			d.pending = append(d.pending, f.Raw...)
			continue
		}
		evs[0].Raw = f.Raw
		if len(d.pending) > 0 {
			evs[0].Raw = append(d.pending, f.Raw...)
			d.pending = nil
		}
		d.queue = evs
	}
	e := d.queue[0]
	d.queue = d.queue[1:]
	return e, nil
}

func malformed(what string, err error) error {
	return fmt.Errorf("anthropic: stream %s: %w: %v", what, llm.ErrMalformed, err)
}

func (d *streamDecoder) decodeFrame(data []byte) ([]llm.Event, error) {
	var ev inEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, malformed("event", err)
	}
	switch ev.Type {
	case "message_start":
		if ev.Message == nil {
			return nil, malformed("message_start", fmt.Errorf("no message"))
		}
		d.usage = usageFromWire(ev.Message.Usage)
		u := d.usage
		return []llm.Event{{Type: llm.EventMessageStart, ID: ev.Message.ID, Model: ev.Message.Model, Usage: &u}}, nil
	case "content_block_start":
		return d.blockStart(ev)
	case "content_block_delta":
		if ev.Delta == nil || d.skipped[ev.Index] {
			return nil, nil
		}
		return blockDelta(ev.Index, ev.Delta), nil
	case "content_block_stop":
		if d.skipped[ev.Index] {
			return nil, nil
		}
		return []llm.Event{{Type: llm.EventBlockStop, Index: ev.Index}}, nil
	case "message_delta":
		return []llm.Event{d.messageDelta(ev)}, nil
	case "message_stop":
		d.ended = true
		return []llm.Event{{Type: llm.EventDone}}, nil
	case "ping":
		return []llm.Event{{Type: llm.EventPing}}, nil
	case "error":
		d.ended = true
		e := llm.Event{Type: llm.EventError, ErrCode: "api_error", ErrMessage: "upstream stream error"}
		if ev.Error != nil {
			e.ErrCode, e.ErrMessage = ev.Error.Type, ev.Error.Message
		}
		return []llm.Event{e}, nil
	}
	return nil, nil
}

func (d *streamDecoder) blockStart(ev inEvent) ([]llm.Event, error) {
	p, ok, err := decodeBlock(ev.ContentBlock, "content_block")
	if err != nil {
		return nil, malformed("content_block_start", err)
	}
	if !ok {
		if d.skipped == nil {
			d.skipped = map[int]bool{}
		}
		d.skipped[ev.Index] = true
		return nil, nil
	}
	block := p
	block.Text, block.Arguments, block.Signature = "", "", ""
	evs := []llm.Event{{Type: llm.EventBlockStart, Index: ev.Index, Block: &block}}
	// Content already present in the start event becomes deltas.
	switch {
	case p.Type == llm.PartText && p.Text != "":
		evs = append(evs, llm.Event{Type: llm.EventTextDelta, Index: ev.Index, Text: p.Text})
	case p.Type == llm.PartToolCall && p.Arguments != "{}" && p.Arguments != "":
		evs = append(evs, llm.Event{Type: llm.EventToolDelta, Index: ev.Index, Text: p.Arguments})
	case p.Type == llm.PartThinking && (p.Text != "" || p.Signature != ""):
		evs = append(evs, llm.Event{Type: llm.EventThinkDelta, Index: ev.Index, Text: p.Text, Signature: p.Signature})
	}
	return evs, nil
}

func blockDelta(index int, d *inDelta) []llm.Event {
	switch d.Type {
	case "text_delta":
		return []llm.Event{{Type: llm.EventTextDelta, Index: index, Text: d.Text}}
	case "input_json_delta":
		return []llm.Event{{Type: llm.EventToolDelta, Index: index, Text: d.PartialJSON}}
	case "thinking_delta":
		return []llm.Event{{Type: llm.EventThinkDelta, Index: index, Text: d.Thinking}}
	case "signature_delta":
		return []llm.Event{{Type: llm.EventThinkDelta, Index: index, Signature: d.Signature}}
	}
	return nil // citations and future delta kinds have no canonical form
}

func (d *streamDecoder) messageDelta(ev inEvent) llm.Event {
	e := llm.Event{Type: llm.EventMessageDelta}
	if ev.Delta != nil {
		if ev.Delta.StopReason != nil {
			e.StopReason = stopFromWire(*ev.Delta.StopReason)
		}
		if ev.Delta.StopSequence != nil {
			e.StopSequence = *ev.Delta.StopSequence
		}
	}
	if u := ev.Usage; u != nil {
		set := func(dst *int, src *int) {
			if src != nil {
				*dst = *src
			}
		}
		set(&d.usage.Input, u.InputTokens)
		set(&d.usage.CacheWrite, u.CacheCreationInputTokens)
		set(&d.usage.CacheRead, u.CacheReadInputTokens)
		set(&d.usage.Output, u.OutputTokens)
	}
	u := d.usage
	e.Usage = &u
	return e
}

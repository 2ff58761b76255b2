package anthropic

import (
	"encoding/json"
	"io"
	"strconv"

	"github.com/heddle-gw/heddle/internal/jsonw"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
	"github.com/heddle-gw/heddle/llm/sse"
)

// pingFrame is the keep-alive exactly as the API writes it.
const pingFrame = "event: ping\ndata: {\"type\": \"ping\"}\n\n"

// streamEncoder writes canonical events as a Messages SSE stream. It numbers
// the blocks it writes itself (dropped blocks leave no gap), closes a block
// before the next one starts, and fills in message_start, message_delta and
// block starts a source stream left out, so a client's accumulator always
// sees a well-formed stream.
type streamEncoder struct {
	c         *Codec
	w         io.Writer
	buf       []byte
	started   bool
	deltaSent bool // message_delta written
	blocks    map[int]*wireBlock
	open      *wireBlock
	next      int
	usage     llm.Usage
}

// wireBlock is the state of one canonical block on the wire.
type wireBlock struct {
	index   int
	kind    llm.PartType
	dropped bool
	foreign bool // reasoning of another provider family: no signatures
}

func newStreamEncoder(c *Codec, w io.Writer) *streamEncoder {
	return &streamEncoder{c: c, w: w, blocks: map[int]*wireBlock{}}
}

type startEvent struct {
	Type    string       `json:"type"`
	Message startMessage `json:"message"`
}

type startMessage struct {
	ID           string     `json:"id"`
	Type         string     `json:"type"`
	Role         string     `json:"role"`
	Model        string     `json:"model"`
	Content      []outBlock `json:"content"`
	StopReason   *string    `json:"stop_reason"`
	StopSequence *string    `json:"stop_sequence"`
	Usage        wireUsage  `json:"usage"`
}

type blockStartEvent struct {
	Type         string   `json:"type"`
	Index        int      `json:"index"`
	ContentBlock outBlock `json:"content_block"`
}

type blockDeltaEvent struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
	Delta any    `json:"delta"`
}

type signatureDelta struct {
	Type      string `json:"type"`
	Signature string `json:"signature"`
}

type indexEvent struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
}

type messageDeltaEvent struct {
	Type  string         `json:"type"`
	Delta messageDeltaIn `json:"delta"`
	Usage wireUsage      `json:"usage"`
}

type messageDeltaIn struct {
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

// Encode writes the frames of one event in a single Write.
func (s *streamEncoder) Encode(e llm.Event) error {
	s.buf = s.buf[:0]
	var err error
	switch e.Type {
	case llm.EventMessageStart:
		err = s.messageStart(e.ID, e.Model, e.Usage)
	case llm.EventPing:
		s.buf = append(s.buf, pingFrame...)
	case llm.EventBlockStart:
		err = s.blockStart(e.Index, e.Block)
	case llm.EventTextDelta, llm.EventToolDelta, llm.EventThinkDelta:
		err = s.blockDelta(e)
	case llm.EventBlockStop:
		if b := s.blocks[e.Index]; b != nil && b == s.open {
			err = s.closeOpen()
		}
	case llm.EventMessageDelta:
		err = s.messageDelta(e.StopReason, e.StopSequence, e.Usage)
	case llm.EventDone:
		if !s.deltaSent {
			err = s.messageDelta(llm.StopEnd, "", nil)
		}
		if err == nil {
			err = s.frame("message_stop", indexlessEvent{Type: "message_stop"})
		}
	case llm.EventError:
		kind := e.ErrCode
		if !knownKind(kind) {
			kind = "api_error"
		}
		err = s.frame("error", errorBody{Type: "error", Error: errorDetail{Type: kind, Message: e.ErrMessage}})
	}
	if err != nil || len(s.buf) == 0 {
		return err
	}
	_, err = s.w.Write(s.buf)
	return err
}

type indexlessEvent struct {
	Type string `json:"type"`
}

func (s *streamEncoder) frame(event string, v any) error {
	data, err := wirejson.Marshal(v)
	if err != nil {
		return err
	}
	s.buf = sse.AppendFrame(s.buf, event, data)
	return nil
}

func (s *streamEncoder) messageStart(id, model string, u *llm.Usage) error {
	if s.started {
		return nil
	}
	s.started = true
	if id == "" {
		id = s.c.id("msg_")
	}
	if u != nil {
		s.usage = *u
	}
	return s.frame("message_start", startEvent{Type: "message_start", Message: startMessage{
		ID: id, Type: "message", Role: "assistant", Model: model, Content: []outBlock{}, Usage: usageToWire(s.usage),
	}})
}

func (s *streamEncoder) blockStart(index int, p *llm.Part) error {
	if err := s.messageStart("", "", nil); err != nil {
		return err
	}
	if err := s.closeOpen(); err != nil {
		return err
	}
	b := &wireBlock{index: s.next}
	s.blocks[index] = b
	var cb outBlock
	switch {
	case p == nil:
		b.dropped = true
	case p.Type == llm.PartText:
		cb = textBlock("", "")
	case p.Type == llm.PartThinking:
		cb = thinkingBlock("", "")
		b.foreign = p.Family != "anthropic"
	case p.Type == llm.PartRedactedThinking && p.Family == "anthropic" && p.Data != "":
		cb = outBlock{Type: "redacted_thinking", Data: p.Data}
	case p.Type == llm.PartToolCall:
		id := p.ID
		if id == "" {
			id = s.c.id("toolu_")
		}
		cb = outBlock{Type: "tool_use", ID: id, Name: p.Name, Input: json.RawMessage("{}")}
	default:
		b.dropped = true
	}
	if b.dropped {
		return nil
	}
	b.kind = p.Type
	s.next++
	s.open = b
	return s.frame("content_block_start", blockStartEvent{Type: "content_block_start", Index: b.index, ContentBlock: cb})
}

func (s *streamEncoder) blockDelta(e llm.Event) error {
	b := s.blocks[e.Index]
	if b == nil {
		// A delta without its block start: start a block of the delta's kind.
		switch e.Type {
		case llm.EventTextDelta:
			if err := s.blockStart(e.Index, &llm.Part{Type: llm.PartText}); err != nil {
				return err
			}
		case llm.EventThinkDelta:
			if err := s.blockStart(e.Index, &llm.Part{Type: llm.PartThinking}); err != nil {
				return err
			}
		default:
			return nil
		}
		b = s.blocks[e.Index]
	}
	if b.dropped || b != s.open {
		return nil
	}
	switch {
	case e.Type == llm.EventTextDelta && b.kind == llm.PartText:
		s.appendDelta(b, `,"delta":{"type":"text_delta","text":`, e.Text)
	case e.Type == llm.EventToolDelta && b.kind == llm.PartToolCall:
		s.appendDelta(b, `,"delta":{"type":"input_json_delta","partial_json":`, e.Text)
	case e.Type == llm.EventThinkDelta && b.kind == llm.PartThinking:
		if e.Text != "" {
			s.appendDelta(b, `,"delta":{"type":"thinking_delta","thinking":`, e.Text)
		}
		if e.Signature != "" && !b.foreign {
			return s.frame("content_block_delta", blockDeltaEvent{Type: "content_block_delta", Index: b.index,
				Delta: signatureDelta{Type: "signature_delta", Signature: e.Signature}})
		}
	}
	return nil
}

// appendDelta appends a content_block_delta frame by hand, byte for byte
// as frame writes it, for the deltas that are most of a stream: head is
// the delta object up to its one string member's value, text.
func (s *streamEncoder) appendDelta(b *wireBlock, head, text string) {
	s.buf = append(s.buf, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":"...)
	s.buf = strconv.AppendInt(s.buf, int64(b.index), 10)
	s.buf = append(s.buf, head...)
	s.buf = jsonw.AppendMarshalString(s.buf, text)
	s.buf = append(s.buf, "}}\n\n"...)
}

func (s *streamEncoder) closeOpen() error {
	if s.open == nil {
		return nil
	}
	b := s.open
	s.open = nil
	return s.frame("content_block_stop", indexEvent{Type: "content_block_stop", Index: b.index})
}

func (s *streamEncoder) messageDelta(stop llm.StopReason, seq string, u *llm.Usage) error {
	if err := s.messageStart("", "", nil); err != nil {
		return err
	}
	if err := s.closeOpen(); err != nil {
		return err
	}
	s.deltaSent = true
	if u != nil {
		s.usage = *u
	}
	ev := messageDeltaEvent{Type: "message_delta", Delta: messageDeltaIn{StopReason: stopToWire(stop)}, Usage: usageToWire(s.usage)}
	if seq != "" {
		ev.Delta.StopSequence = &seq
	}
	return s.frame("message_delta", ev)
}

// knownKind reports whether kind is one of the API's error types.
func knownKind(kind string) bool {
	switch kind {
	case "invalid_request_error", "authentication_error", "billing_error", "permission_error",
		"not_found_error", "request_too_large", "rate_limit_error", "api_error", "timeout_error",
		"overloaded_error":
		return true
	}
	return false
}

package openaichat

import (
	"io"
	"strconv"

	"github.com/heddle-gw/heddle/internal/jsonw"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/openaierr"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
	"github.com/heddle-gw/heddle/llm/sse"
)

const doneFrame = "data: [DONE]\n\n"

// StreamEncoder writes canonical events as a Chat Completions SSE stream.
// Text deltas become content chunks, each tool call block a tool_calls entry
// numbered among the tool calls; reasoning is dropped (the format has none).
//
// It appends each chunk by hand, as encoding/json would marshal it with
// HTML escaping off, into a buffer it reuses: the members every chunk shares
// (id, object, created, model) are written once, at the start.
type StreamEncoder struct {
	// IncludeUsage adds "usage":null to every chunk and a last chunk with
	// empty choices carrying the usage, as stream_options.include_usage asks.
	IncludeUsage bool

	c          *Codec
	w          io.Writer
	buf        []byte
	head       []byte // every chunk's JSON up to its delta's members
	choicesAt  int    // where "choices" starts in head
	started    bool
	tools      map[int]int // canonical block index -> tool call index
	usage      llm.Usage
	finishSent bool
}

var _ llm.UsageIncluder = (*StreamEncoder)(nil)

// SetIncludeUsage sets IncludeUsage (llm.UsageIncluder).
func (s *StreamEncoder) SetIncludeUsage(on bool) { s.IncludeUsage = on }

var _ llm.StreamEncoder = (*StreamEncoder)(nil)

// Encode writes the frames of one event in a single Write.
func (s *StreamEncoder) Encode(e llm.Event) error {
	s.buf = s.buf[:0]
	var err error
	switch e.Type {
	case llm.EventMessageStart:
		s.start(e.ID, e.Model)
	case llm.EventBlockStart:
		s.blockStart(e.Index, e.Block)
	case llm.EventTextDelta:
		s.start("", "")
		if e.Text != "" {
			s.openChunk()
			s.buf = append(s.buf, `"content":`...)
			s.buf = jsonw.AppendMarshalString(s.buf, e.Text)
			s.closeChunk(nil)
		}
	case llm.EventToolDelta:
		if k, ok := s.tools[e.Index]; ok && e.Text != "" {
			s.openToolCall(k)
			s.buf = append(s.buf, `,"function":{"arguments":`...)
			s.buf = jsonw.AppendMarshalString(s.buf, e.Text)
			s.buf = append(s.buf, "}}]"...)
			s.closeChunk(nil)
		}
	case llm.EventMessageDelta:
		if e.Usage != nil {
			s.usage = *e.Usage
		}
		s.finish(e.StopReason)
	case llm.EventDone:
		s.done()
	case llm.EventError:
		err = s.errorFrame(e)
	}
	if err != nil || len(s.buf) == 0 {
		return err
	}
	_, err = s.w.Write(s.buf)
	return err
}

// start writes the first chunk, the assistant's role, once.
func (s *StreamEncoder) start(id, model string) {
	if s.started {
		return
	}
	s.started = true
	if id == "" {
		id = s.c.id("chatcmpl-")
	}
	h := append(s.head[:0], `{"id":`...)
	h = jsonw.AppendMarshalString(h, id)
	h = append(h, `,"object":"chat.completion.chunk","created":`...)
	h = strconv.AppendInt(h, s.c.now(), 10)
	h = append(h, `,"model":`...)
	h = jsonw.AppendMarshalString(h, model)
	h = append(h, ',')
	s.choicesAt = len(h)
	s.head = append(h, `"choices":[{"index":0,"delta":{`...)
	s.openChunk()
	s.buf = append(s.buf, `"role":"assistant","content":""`...)
	s.closeChunk(nil)
}

// openChunk appends a chunk's frame up to its delta's members.
func (s *StreamEncoder) openChunk() {
	s.buf = append(s.buf, "data: "...)
	s.buf = append(s.buf, s.head...)
}

// closeChunk appends the rest of the chunk after its delta's members, and
// the end of the frame; finish is the finish_reason, nil for null.
func (s *StreamEncoder) closeChunk(finish *string) {
	s.buf = append(s.buf, `},"logprobs":null,"finish_reason":`...)
	if finish == nil {
		s.buf = append(s.buf, "null"...)
	} else {
		s.buf = jsonw.AppendMarshalString(s.buf, *finish)
	}
	s.buf = append(s.buf, "}]"...)
	if s.IncludeUsage {
		s.buf = append(s.buf, `,"usage":null`...)
	}
	s.buf = append(s.buf, "}\n\n"...)
}

// openToolCall appends a chunk up to the members of its one tool call
// after the index, k.
func (s *StreamEncoder) openToolCall(k int) {
	s.openChunk()
	s.buf = append(s.buf, `"tool_calls":[{"index":`...)
	s.buf = strconv.AppendInt(s.buf, int64(k), 10)
}

func (s *StreamEncoder) blockStart(index int, p *llm.Part) {
	s.start("", "")
	if p == nil || p.Type != llm.PartToolCall {
		return
	}
	if s.tools == nil {
		s.tools = map[int]int{}
	}
	k := len(s.tools)
	s.tools[index] = k
	id := p.ID
	if id == "" {
		id = s.c.id("call_")
	}
	s.openToolCall(k)
	if id != "" { // a NewID may give none
		s.buf = append(s.buf, `,"id":`...)
		s.buf = jsonw.AppendMarshalString(s.buf, id)
	}
	s.buf = append(s.buf, `,"type":"function","function":{`...)
	if p.Name != "" {
		s.buf = append(s.buf, `"name":`...)
		s.buf = jsonw.AppendMarshalString(s.buf, p.Name)
		s.buf = append(s.buf, ',')
	}
	s.buf = append(s.buf, `"arguments":""}}]`...)
	s.closeChunk(nil)
}

func (s *StreamEncoder) finish(stop llm.StopReason) {
	if s.finishSent {
		return
	}
	s.start("", "")
	s.finishSent = true
	if stop == "" {
		stop = llm.StopEnd
	}
	s.openChunk()
	s.closeChunk(finishToWire(stop))
}

func (s *StreamEncoder) done() {
	s.finish("")
	if s.IncludeUsage {
		s.buf = append(s.buf, "data: "...)
		s.buf = append(s.buf, s.head[:s.choicesAt]...)
		s.buf = append(s.buf, `"choices":[],"usage":`...)
		s.buf = appendUsage(s.buf, usageToWire(s.usage))
		s.buf = append(s.buf, "}\n\n"...)
	}
	s.buf = append(s.buf, doneFrame...)
}

// appendUsage appends u as encoding/json marshals it.
func appendUsage(b []byte, u wireUsage) []byte {
	b = appendInt(b, `{"prompt_tokens":`, u.PromptTokens)
	b = appendInt(b, `,"completion_tokens":`, u.CompletionTokens)
	b = appendInt(b, `,"total_tokens":`, u.TotalTokens)
	if pd := u.PromptTokensDetails; pd != nil {
		b = appendInt(b, `,"prompt_tokens_details":{"cached_tokens":`, pd.CachedTokens)
		b = appendInt(b, `,"audio_tokens":`, pd.AudioTokens)
		b = append(b, '}')
	}
	if cd := u.CompletionTokensDetails; cd != nil {
		b = appendInt(b, `,"completion_tokens_details":{"reasoning_tokens":`, cd.ReasoningTokens)
		b = appendInt(b, `,"audio_tokens":`, cd.AudioTokens)
		b = appendInt(b, `,"accepted_prediction_tokens":`, cd.AcceptedPredictionTokens)
		b = appendInt(b, `,"rejected_prediction_tokens":`, cd.RejectedPredictionTokens)
		b = append(b, '}')
	}
	if u.PromptCacheHitTokens != nil {
		b = appendInt(b, `,"prompt_cache_hit_tokens":`, *u.PromptCacheHitTokens)
	}
	return append(b, '}')
}

// appendInt appends key, then v.
func appendInt(b []byte, key string, v int) []byte {
	b = append(b, key...)
	return strconv.AppendInt(b, int64(v), 10)
}

// errorFrame writes the error object the API sends inside a broken stream.
func (s *StreamEncoder) errorFrame(e llm.Event) error {
	d, known := openaierr.For(500, e.ErrCode, e.ErrMessage)
	if !known {
		// Not an error kind this format knows: report a server error with
		// the upstream's code.
		d.Type, d.Code = openaierr.Server.Type(), &e.ErrCode
	}
	data, err := wirejson.Marshal(openaierr.Body{Error: d})
	if err != nil {
		return err
	}
	s.buf = sse.AppendFrame(s.buf, "", data)
	return nil
}

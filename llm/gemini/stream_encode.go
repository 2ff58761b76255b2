package gemini

import (
	"encoding/json"
	"io"
	"sort"
	"strings"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/sse"

	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// encBlock is a canonical block being written.
type encBlock struct {
	kind      llm.PartType
	id, name  string
	args      strings.Builder
	signature string // a Google signature to send with the block
	google    bool   // the block came from Gemini: its signatures may be replayed
}

// streamEncoder writes canonical events as a streamGenerateContent SSE
// stream: one chunk per text or thought delta, one per whole function call
// (Gemini never splits a call's arguments), and a last chunk with the finish
// reason and usage. An error becomes a chunk in Google's error shape.
type streamEncoder struct {
	w        io.Writer
	id       string
	model    string
	start    *llm.Usage
	usage    *llm.Usage
	stop     llm.StopReason
	blocks   map[int]*encBlock
	finished bool
	err      error
}

func newStreamEncoder(w io.Writer) *streamEncoder {
	return &streamEncoder{w: w, blocks: map[int]*encBlock{}}
}

// Encode writes the chunks of one canonical event.
func (s *streamEncoder) Encode(e llm.Event) error {
	if s.finished || s.err != nil {
		return s.err
	}
	switch e.Type {
	case llm.EventMessageStart:
		s.id, s.model = e.ID, e.Model
		if e.Usage != nil {
			u := *e.Usage
			s.start = &u
		}
	case llm.EventBlockStart:
		s.openBlock(e.Index, e.Block)
	case llm.EventTextDelta, llm.EventThinkDelta, llm.EventToolDelta:
		s.delta(e)
	case llm.EventBlockStop:
		s.closeBlock(e.Index)
	case llm.EventMessageDelta:
		s.stop = e.StopReason
		if e.Usage != nil {
			u := *e.Usage
			s.usage = &u
		}
	case llm.EventDone:
		s.complete()
	case llm.EventError:
		s.failed(e.ErrMessage, e.ErrCode)
	}
	return s.err
}

func (s *streamEncoder) openBlock(idx int, p *llm.Part) {
	if p == nil {
		p = &llm.Part{Type: llm.PartText}
	}
	b := &encBlock{kind: p.Type, id: p.ID, name: p.Name, google: p.Family == family}
	if b.google {
		b.signature = p.Signature
	}
	s.blocks[idx] = b
}

func (s *streamEncoder) delta(e llm.Event) {
	b := s.blocks[e.Index]
	if b == nil {
		kind := llm.PartText
		switch e.Type {
		case llm.EventToolDelta:
			kind = llm.PartToolCall
		case llm.EventThinkDelta:
			kind = llm.PartThinking
		}
		b = &encBlock{kind: kind}
		s.blocks[e.Index] = b
	}
	switch b.kind {
	case llm.PartToolCall:
		b.args.WriteString(e.Text)
	case llm.PartText:
		if e.Text != "" {
			s.chunk(outPart{Text: strp(e.Text), ThoughtSignature: b.takeSignature()})
		}
	case llm.PartThinking:
		sig := b.takeSignature()
		if e.Signature != "" && b.google {
			// A signature of a foreign family is never handed out.
			sig = e.Signature
		}
		if e.Text != "" || sig != "" {
			s.chunk(outPart{Text: strp(e.Text), Thought: true, ThoughtSignature: sig})
		}
	}
}

// takeSignature returns a block's signature once, for its first chunk.
func (b *encBlock) takeSignature() string {
	sig := b.signature
	b.signature = ""
	return sig
}

// closeBlock writes a function call whole; other blocks need nothing more.
func (s *streamEncoder) closeBlock(idx int) {
	b := s.blocks[idx]
	delete(s.blocks, idx)
	if b == nil || b.kind != llm.PartToolCall || b.name == "" {
		return // a call without a name cannot be sent
	}
	args, err := argsObject(b.args.String())
	if err != nil {
		args = json.RawMessage("{}")
	}
	s.chunk(outPart{FunctionCall: &outCall{ID: b.id, Name: b.name, Args: args}, ThoughtSignature: b.takeSignature()})
}

// chunk writes one GenerateContentResponse with one part.
func (s *streamEncoder) chunk(p outPart) {
	s.write(outResponse{
		Candidates:   []outCandidate{{Content: outContent{Role: "model", Parts: []outPart{p}}}},
		ModelVersion: s.model,
		ResponseID:   s.id,
	})
}

func (s *streamEncoder) write(v any) {
	if s.err != nil {
		return
	}
	data, err := wirejson.Marshal(v)
	if err != nil {
		s.err = err
		return
	}
	s.err = sse.WriteFrame(s.w, "", data)
}

// complete flushes open calls and writes the closing chunk.
func (s *streamEncoder) complete() {
	open := make([]int, 0, len(s.blocks))
	for idx := range s.blocks {
		open = append(open, idx)
	}
	sort.Ints(open)
	for _, idx := range open {
		s.closeBlock(idx)
	}
	var u llm.Usage
	if s.usage != nil {
		u = *s.usage
	}
	if s.start != nil && u.Input == 0 && u.CacheRead == 0 && u.CacheWrite == 0 {
		u.Input, u.CacheRead, u.CacheWrite = s.start.Input, s.start.CacheRead, s.start.CacheWrite
	}
	s.write(outResponse{
		Candidates:    []outCandidate{{Content: outContent{Role: "model", Parts: []outPart{{Text: strp("")}}}, FinishReason: finishReason(s.stop)}},
		UsageMetadata: encodeUsage(u),
		ModelVersion:  s.model,
		ResponseID:    s.id,
	})
	s.finished = true
}

// failed writes an error chunk in Google's error shape.
func (s *streamEncoder) failed(msg, code string) {
	status, name := 500, "INTERNAL"
	switch strings.ToLower(code) {
	case "rate_limit_exceeded", "rate_limit_error", "resource_exhausted":
		status, name = 429, "RESOURCE_EXHAUSTED"
	case "overloaded", "overloaded_error", "unavailable":
		status, name = 503, "UNAVAILABLE"
	case "invalid_request_error", "invalid_argument":
		status, name = 400, "INVALID_ARGUMENT"
	}
	s.write(outStreamError{Error: wireErrorDetail{Code: status, Message: or(msg, "the upstream stream failed"), Status: name}})
	s.finished = true
}

package openaichat

// The StreamEncoder as it was before it appended its frames by hand,
// kept as the reference its output must equal byte for byte
// (FuzzStreamEncodeChunk).

import (
	"encoding/json"
	"io"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/openaierr"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
	"github.com/heddle-gw/heddle/llm/sse"
)

// nullJSON is written for "usage" in every chunk of a stream whose caller
// asked for usage, as the API does.
var nullJSON = json.RawMessage("null")

type oldStreamEncoder struct {
	IncludeUsage bool

	c          *Codec
	w          io.Writer
	buf        []byte
	started    bool
	id, model  string
	created    int64
	tools      map[int]int // canonical block index -> tool call index
	usage      llm.Usage
	finishSent bool
}

type outChunk struct {
	ID      string           `json:"id"`
	Object  string           `json:"object"`
	Created int64            `json:"created"`
	Model   string           `json:"model"`
	Choices []outChunkChoice `json:"choices"`
	Usage   any              `json:"usage,omitempty"`
}

type outChunkChoice struct {
	Index        int       `json:"index"`
	Delta        outDelta  `json:"delta"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type outDelta struct {
	Role      string             `json:"role,omitempty"`
	Content   *string            `json:"content,omitempty"`
	ToolCalls []outChunkToolCall `json:"tool_calls,omitempty"`
}

type outChunkToolCall struct {
	Index    int              `json:"index"`
	ID       string           `json:"id,omitempty"`
	Type     string           `json:"type,omitempty"`
	Function outChunkFunction `json:"function"`
}

type outChunkFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

func (s *oldStreamEncoder) Encode(e llm.Event) error {
	s.buf = s.buf[:0]
	var err error
	switch e.Type {
	case llm.EventMessageStart:
		err = s.start(e.ID, e.Model)
	case llm.EventBlockStart:
		err = s.blockStart(e.Index, e.Block)
	case llm.EventTextDelta:
		if err = s.start("", ""); err == nil && e.Text != "" {
			text := e.Text
			err = s.chunk(outDelta{Content: &text}, nil)
		}
	case llm.EventToolDelta:
		if k, ok := s.tools[e.Index]; ok && e.Text != "" {
			err = s.chunk(outDelta{ToolCalls: []outChunkToolCall{{Index: k, Function: outChunkFunction{Arguments: e.Text}}}}, nil)
		}
	case llm.EventMessageDelta:
		if e.Usage != nil {
			s.usage = *e.Usage
		}
		err = s.finish(e.StopReason)
	case llm.EventDone:
		err = s.done()
	case llm.EventError:
		err = s.errorFrame(e)
	}
	if err != nil || len(s.buf) == 0 {
		return err
	}
	_, err = s.w.Write(s.buf)
	return err
}

func (s *oldStreamEncoder) start(id, model string) error {
	if s.started {
		return nil
	}
	s.started = true
	s.id, s.model, s.created = id, model, s.c.now()
	if s.id == "" {
		s.id = s.c.id("chatcmpl-")
	}
	empty := ""
	return s.chunk(outDelta{Role: "assistant", Content: &empty}, nil)
}

func (s *oldStreamEncoder) blockStart(index int, p *llm.Part) error {
	if err := s.start("", ""); err != nil {
		return err
	}
	if p == nil || p.Type != llm.PartToolCall {
		return nil
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
	return s.chunk(outDelta{ToolCalls: []outChunkToolCall{{
		Index: k, ID: id, Type: "function", Function: outChunkFunction{Name: p.Name},
	}}}, nil)
}

func (s *oldStreamEncoder) finish(stop llm.StopReason) error {
	if s.finishSent {
		return nil
	}
	if err := s.start("", ""); err != nil {
		return err
	}
	s.finishSent = true
	if stop == "" {
		stop = llm.StopEnd
	}
	return s.chunk(outDelta{}, finishToWire(stop))
}

func (s *oldStreamEncoder) done() error {
	if err := s.finish(""); err != nil {
		return err
	}
	if s.IncludeUsage {
		data, err := wirejson.Marshal(outChunk{
			ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: s.model,
			Choices: []outChunkChoice{}, Usage: usageToWire(s.usage),
		})
		if err != nil {
			return err
		}
		s.buf = sse.AppendFrame(s.buf, "", data)
	}
	s.buf = append(s.buf, doneFrame...)
	return nil
}

func (s *oldStreamEncoder) chunk(d outDelta, finish *string) error {
	ch := outChunk{
		ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: s.model,
		Choices: []outChunkChoice{{Delta: d, FinishReason: finish}},
	}
	if s.IncludeUsage {
		ch.Usage = nullJSON
	}
	data, err := wirejson.Marshal(ch)
	if err != nil {
		return err
	}
	s.buf = sse.AppendFrame(s.buf, "", data)
	return nil
}

// errorFrame writes the error object the API sends inside a broken stream.
func (s *oldStreamEncoder) errorFrame(e llm.Event) error {
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

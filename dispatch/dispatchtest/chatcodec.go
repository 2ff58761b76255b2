package dispatchtest

import (
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/sse"
)

// ChatCodec is a small OpenAI Chat Completions codec covering what the fake
// upstream sends: text and tool-call answers, whole or streamed, with usage.
// It exists so dispatch's tests do not depend on the full wire codecs; it is
// not a conformant codec (SetModel, for one, re-marshals the body).
type ChatCodec struct{}

var _ llm.Codec = ChatCodec{}

// Format returns llm.FormatChat.
func (ChatCodec) Format() llm.Format { return llm.FormatChat }

type chatMsg struct {
	Role      string          `json:"role"`
	Content   *string         `json:"content"`
	ToolCalls []chatToolCall  `json:"tool_calls,omitempty"`
	Raw       json.RawMessage `json:"-"`
}

type chatToolCall struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chatReq struct {
	Model    string    `json:"model"`
	Messages []chatMsg `json:"messages"`
	Stream   bool      `json:"stream,omitempty"`
}

// DecodeRequest reads model, stream and text messages.
func (ChatCodec) DecodeRequest(body []byte) (*llm.Request, error) {
	var r chatReq
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, &llm.BadRequestError{Reason: err.Error()}
	}
	out := &llm.Request{Model: r.Model, Stream: r.Stream}
	for _, m := range r.Messages {
		text := ""
		if m.Content != nil {
			text = *m.Content
		}
		out.Messages = append(out.Messages, llm.Message{Role: llm.Role(m.Role), Content: []llm.Part{{Type: llm.PartText, Text: text}}})
	}
	return out, nil
}

// EncodeRequest writes model, stream and the text of every message.
func (ChatCodec) EncodeRequest(r *llm.Request) ([]byte, error) {
	out := chatReq{Model: r.Model, Stream: r.Stream}
	for _, m := range r.Messages {
		var b strings.Builder
		for _, p := range m.Content {
			b.WriteString(p.Text)
		}
		s := b.String()
		out.Messages = append(out.Messages, chatMsg{Role: string(m.Role), Content: &s})
	}
	return json.Marshal(out)
}

type chatResp struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Created int64  `json:"created"`
	Choices []struct {
		Message      chatMsg `json:"message"`
		Delta        chatMsg `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		Prompt     int `json:"prompt_tokens"`
		Completion int `json:"completion_tokens"`
	} `json:"usage"`
}

func chatStop(s string) llm.StopReason {
	switch s {
	case "tool_calls":
		return llm.StopToolUse
	case "length":
		return llm.StopMaxTokens
	}
	return llm.StopEnd
}

// DecodeResponse reads a chat.completion object.
func (ChatCodec) DecodeResponse(body []byte) (*llm.Response, error) {
	var r chatResp
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, errors.Join(llm.ErrMalformed, err)
	}
	if len(r.Choices) == 0 {
		return nil, llm.ErrMalformed
	}
	out := &llm.Response{ID: r.ID, Model: r.Model, Created: r.Created}
	c := r.Choices[0]
	if c.Message.Content != nil && *c.Message.Content != "" {
		out.Content = append(out.Content, llm.Part{Type: llm.PartText, Text: *c.Message.Content})
	}
	for _, tc := range c.Message.ToolCalls {
		out.Content = append(out.Content, llm.Part{Type: llm.PartToolCall, ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	if c.FinishReason != nil {
		out.StopReason = chatStop(*c.FinishReason)
	}
	if r.Usage != nil {
		out.Usage = llm.Usage{Input: r.Usage.Prompt, Output: r.Usage.Completion}
	}
	return out, nil
}

// EncodeResponse writes a chat.completion object with text and tool calls.
func (ChatCodec) EncodeResponse(r *llm.Response) ([]byte, error) {
	var text strings.Builder
	var calls []obj
	for _, p := range r.Content {
		switch p.Type {
		case llm.PartText:
			text.WriteString(p.Text)
		case llm.PartToolCall:
			calls = append(calls, obj{"id": p.ID, "type": "function", "function": obj{"name": p.Name, "arguments": p.Arguments}})
		}
	}
	msg := obj{"role": "assistant", "content": text.String()}
	if calls != nil {
		msg["tool_calls"] = calls
	}
	finish := "stop"
	if r.StopReason == llm.StopToolUse {
		finish = "tool_calls"
	}
	return json.Marshal(obj{"id": r.ID, "object": "chat.completion", "model": r.Model,
		"choices": []obj{{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   obj{"prompt_tokens": r.Usage.Input, "completion_tokens": r.Usage.Output}})
}

// NewStreamEncoder writes each event as one JSON data frame (not OpenAI's
// chunk shape: good enough for tests that look at bytes flowing).
func (ChatCodec) NewStreamEncoder(w io.Writer) llm.StreamEncoder { return chatEncoder{w} }

type chatEncoder struct{ w io.Writer }

func (e chatEncoder) Encode(ev llm.Event) error {
	ev.Raw = nil
	return sse.WriteFrame(e.w, "", mustJSON(ev))
}

// EncodeError writes OpenAI's error shape.
func (ChatCodec) EncodeError(status int, kind, message string) []byte {
	return mustJSON(obj{"error": obj{"message": message, "type": kind, "param": nil, "code": nil}})
}

// SetModel re-marshals body with model replaced.
func (ChatCodec) SetModel(body []byte, model string) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, errors.Join(llm.ErrMalformed, err)
	}
	m["model"] = mustJSON(model)
	return json.Marshal(m)
}

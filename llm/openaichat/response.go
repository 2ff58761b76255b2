package openaichat

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

type inResponse struct {
	ID      string     `json:"id"`
	Created int64      `json:"created"`
	Model   string     `json:"model"`
	Choices []inChoice `json:"choices"`
	Usage   *wireUsage `json:"usage"`
}

type inChoice struct {
	Message      inRespMessage `json:"message"`
	FinishReason *string       `json:"finish_reason"`
}

type inRespMessage struct {
	Content          json.RawMessage `json:"content"`
	Refusal          *string         `json:"refusal"`
	ToolCalls        []inToolCall    `json:"tool_calls"`
	ReasoningContent *string         `json:"reasoning_content"`
	Reasoning        *string         `json:"reasoning"`
}

type outResponse struct {
	ID      string      `json:"id"`
	Object  string      `json:"object"`
	Created int64       `json:"created"`
	Model   string      `json:"model"`
	Choices []outChoice `json:"choices"`
	Usage   wireUsage   `json:"usage"`
}

type outChoice struct {
	Index        int            `json:"index"`
	Message      outRespMessage `json:"message"`
	Logprobs     *struct{}      `json:"logprobs"`
	FinishReason *string        `json:"finish_reason"`
}

type outRespMessage struct {
	Role        string        `json:"role"`
	Content     *string       `json:"content"`
	ToolCalls   []outToolCall `json:"tool_calls,omitempty"`
	Refusal     *string       `json:"refusal"`
	Annotations []struct{}    `json:"annotations"`
}

// DecodeResponse parses a complete Chat Completions response from an
// upstream; only the first choice is read. The common shapes take one pass
// (fastResponse); anything else, errors included, goes through
// encoding/json.
func (*Codec) DecodeResponse(body []byte) (*llm.Response, error) {
	if d, ok := fastResponse(body); ok {
		return d.response(), nil
	}
	return decodeResponseJSON(body)
}

// decodeResponseJSON is DecodeResponse through encoding/json, for every
// shape.
func decodeResponseJSON(body []byte) (*llm.Response, error) {
	var in inResponse
	if err := wirejson.Unmarshal(body, &in, "", wirejson.Malformed); err != nil {
		return nil, err
	}
	d := decodedResponse{id: in.ID, model: in.Model, created: in.Created, usage: in.Usage}
	if len(in.Choices) > 0 {
		text, err := responseText(in.Choices[0].Message.Content)
		if err != nil {
			return nil, err
		}
		d.choice, d.text = &in.Choices[0], text
	}
	return d.response(), nil
}

// decodedResponse is what DecodeResponse reads from a body: the first
// choice (nil for none) and its content as text.
type decodedResponse struct {
	id, model string
	created   int64
	usage     *wireUsage
	choice    *inChoice
	text      string
}

func (d *decodedResponse) response() *llm.Response {
	r := &llm.Response{ID: d.id, Model: d.model, Created: d.created}
	if d.usage != nil {
		r.Usage = usageFromWire(*d.usage)
	}
	if d.choice == nil {
		return r
	}
	ch := d.choice
	if ch.FinishReason != nil {
		r.StopReason = stopFromWire(*ch.FinishReason)
	}
	m := ch.Message
	if reasoning := firstNonEmpty(m.ReasoningContent, m.Reasoning); reasoning != "" {
		r.Content = append(r.Content, llm.Part{Type: llm.PartThinking, Text: reasoning})
	}
	text := d.text
	if text == "" && m.Refusal != nil {
		text = *m.Refusal
	}
	if text != "" {
		r.Content = append(r.Content, llm.Part{Type: llm.PartText, Text: text})
	}
	for _, tc := range m.ToolCalls {
		r.Content = append(r.Content, llm.Part{
			Type: llm.PartToolCall, ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments,
		})
	}
	return r
}

// responseText reads a message's content: a string, null, or (from some
// compatible servers) an array of text parts.
func responseText(raw json.RawMessage) (string, error) {
	if wirejson.IsNull(raw) {
		return "", nil
	}
	parts, err := decodeParts(raw, "choices[0].message.content", true)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

func firstNonEmpty(ss ...*string) string {
	for _, s := range ss {
		if s != nil && *s != "" {
			return *s
		}
	}
	return ""
}

// EncodeResponse renders r as a Chat Completions response for a caller.
// Reasoning has no place in the format and is left out.
func (c *Codec) EncodeResponse(r *llm.Response) ([]byte, error) {
	msg := outRespMessage{Role: "assistant", Annotations: []struct{}{}}
	var text strings.Builder
	hasText := false
	for _, p := range r.Content {
		switch p.Type {
		case llm.PartText:
			text.WriteString(p.Text)
			hasText = true
		case llm.PartToolCall:
			id := p.ID
			if id == "" {
				id = c.id("call_")
			}
			msg.ToolCalls = append(msg.ToolCalls, outToolCall{
				ID: id, Type: "function", Function: outFunction{Name: p.Name, Arguments: p.Arguments},
			})
		}
	}
	if hasText || len(msg.ToolCalls) == 0 {
		s := text.String()
		msg.Content = &s
	}
	out := outResponse{
		ID: r.ID, Object: "chat.completion", Created: r.Created, Model: r.Model,
		Choices: []outChoice{{Message: msg, FinishReason: finishToWire(r.StopReason)}},
		Usage:   usageToWire(r.Usage),
	}
	if out.ID == "" {
		out.ID = c.id("chatcmpl-")
	}
	if out.Created == 0 {
		out.Created = c.now()
	}
	return wirejson.Marshal(out)
}

// usageFromWire converts usage: prompt_tokens includes cached tokens, the
// canonical Input does not.
func usageFromWire(u wireUsage) llm.Usage {
	cached := 0
	switch {
	case u.PromptTokensDetails != nil:
		cached = u.PromptTokensDetails.CachedTokens
	case u.PromptCacheHitTokens != nil:
		cached = *u.PromptCacheHitTokens
	}
	cached = min(max(cached, 0), max(u.PromptTokens, 0))
	out := llm.Usage{Input: u.PromptTokens - cached, CacheRead: cached, Output: u.CompletionTokens}
	if u.CompletionTokensDetails != nil {
		out.Reasoning = u.CompletionTokensDetails.ReasoningTokens
	}
	return out
}

func usageToWire(u llm.Usage) wireUsage {
	prompt := u.Input + u.CacheRead + u.CacheWrite
	return wireUsage{
		PromptTokens: prompt, CompletionTokens: u.Output, TotalTokens: prompt + u.Output,
		PromptTokensDetails:     &promptDetails{CachedTokens: u.CacheRead},
		CompletionTokensDetails: &completionDetails{ReasoningTokens: u.Reasoning},
	}
}

func stopFromWire(s string) llm.StopReason {
	switch s {
	case "stop":
		return llm.StopEnd
	case "length":
		return llm.StopMaxTokens
	case "tool_calls", "function_call":
		return llm.StopToolUse
	case "content_filter":
		return llm.StopRefusal
	case "":
		return ""
	}
	return llm.StopEnd
}

// finishToWire maps a canonical stop reason to finish_reason; nil for none.
func finishToWire(s llm.StopReason) *string {
	var w string
	switch s {
	case "":
		return nil
	case llm.StopMaxTokens:
		w = "length"
	case llm.StopToolUse:
		w = "tool_calls"
	case llm.StopRefusal:
		w = "content_filter"
	default:
		w = "stop"
	}
	return &w
}

func malformed(what string, err error) error {
	return fmt.Errorf("openaichat: stream %s: %w: %v", what, llm.ErrMalformed, err)
}

package anthropic

import (
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// DecodeResponse parses a complete Messages response from an upstream.
func (*Codec) DecodeResponse(body []byte) (*llm.Response, error) {
	var in wireResponse
	if err := wirejson.Unmarshal(body, &in, "", wirejson.Malformed); err != nil {
		return nil, err
	}
	if in.Type != "" && in.Type != "message" {
		return nil, badRequest("type", "expected \"message\", got \""+in.Type+"\"")
	}
	r := &llm.Response{ID: in.ID, Model: in.Model, Usage: usageFromWire(in.Usage)}
	if in.StopReason != nil {
		r.StopReason = stopFromWire(*in.StopReason)
	}
	if in.StopSequence != nil {
		r.StopSequence = *in.StopSequence
	}
	if !wirejson.IsNull(in.Content) {
		parts, err := decodeContent(in.Content, "content")
		if err != nil {
			return nil, err
		}
		r.Content = parts
	}
	return r, nil
}

// EncodeResponse renders r as a Messages response for a caller.
func (c *Codec) EncodeResponse(r *llm.Response) ([]byte, error) {
	out := outResponse{
		ID: r.ID, Type: "message", Role: "assistant", Model: r.Model,
		Content: c.responseBlocks(r.Content), StopReason: stopToWire(r.StopReason), Usage: usageToWire(r.Usage),
	}
	if out.ID == "" {
		out.ID = c.id("msg_")
	}
	if r.StopSequence != "" {
		out.StopSequence = &r.StopSequence
	}
	return wirejson.Marshal(out)
}

// responseBlocks renders answer content for a caller. Reasoning of another
// provider family keeps its text but loses its signature and opaque data: a
// caller would send them back, and the API would reject them.
func (c *Codec) responseBlocks(parts []llm.Part) []outBlock {
	blocks := make([]outBlock, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case llm.PartThinking:
			blocks = append(blocks, thinkingBlock(p.Text, signatureFor(p)))
		case llm.PartText, llm.PartToolCall, llm.PartRedactedThinking:
			if b, ok := c.encodePart(p); ok {
				blocks = append(blocks, b)
			}
		}
	}
	return blocks
}

func thinkingBlock(text, signature string) outBlock {
	return outBlock{Type: "thinking", Thinking: &text, Signature: &signature}
}

// signatureFor returns the signature a caller may see for a thinking part.
func signatureFor(p llm.Part) string {
	if p.Family != "anthropic" {
		return ""
	}
	return p.Signature
}

func usageFromWire(u wireUsage) llm.Usage {
	return llm.Usage{
		Input: u.InputTokens, Output: u.OutputTokens,
		CacheRead: u.CacheReadInputTokens, CacheWrite: u.CacheCreationInputTokens,
	}
}

func usageToWire(u llm.Usage) wireUsage {
	return wireUsage{
		InputTokens: u.Input, OutputTokens: u.Output,
		CacheReadInputTokens: u.CacheRead, CacheCreationInputTokens: u.CacheWrite,
	}
}

// stopFromWire maps the API's stop_reason to the canonical one.
func stopFromWire(s string) llm.StopReason {
	switch s {
	case "end_turn", "pause_turn":
		return llm.StopEnd
	case "max_tokens", "model_context_window_exceeded":
		return llm.StopMaxTokens
	case "stop_sequence":
		return llm.StopSequence
	case "tool_use":
		return llm.StopToolUse
	case "refusal":
		return llm.StopRefusal
	case "":
		return ""
	}
	return llm.StopEnd
}

// stopToWire maps a canonical stop reason to the API's; nil for none.
func stopToWire(s llm.StopReason) *string {
	var w string
	switch s {
	case "":
		return nil
	case llm.StopMaxTokens:
		w = "max_tokens"
	case llm.StopSequence:
		w = "stop_sequence"
	case llm.StopToolUse:
		w = "tool_use"
	case llm.StopRefusal:
		w = "refusal"
	default:
		w = "end_turn"
	}
	return &w
}

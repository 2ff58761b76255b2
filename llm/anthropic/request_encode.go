package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/dataurl"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// emptySchema is the input_schema of a tool that takes no parameters.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// EncodeRequest renders r as a Messages request body for an upstream.
// max_tokens defaults to DefaultMaxTokens; a response format is dropped (the
// API has no JSON mode); parts the API cannot take from another provider
// (foreign or unsigned thinking) are left out.
func (c *Codec) EncodeRequest(r *llm.Request) ([]byte, error) {
	out := outRequest{
		Model: r.Model, MaxTokens: r.MaxTokens, Temperature: r.Temperature, TopP: r.TopP, TopK: r.TopK,
		StopSequences: r.Stop, Stream: r.Stream,
	}
	if out.MaxTokens <= 0 {
		out.MaxTokens = DefaultMaxTokens
	}
	system := append([]llm.Part(nil), r.System...)
	for _, m := range r.Messages {
		if m.Role == llm.RoleSystem || m.Role == llm.RoleDeveloper {
			system = append(system, m.Content...)
		}
	}
	out.System = encodeSystem(system)
	out.Messages = c.encodeMessages(r.Messages)
	for _, t := range r.Tools {
		schema := t.Parameters
		if len(schema) == 0 || string(schema) == "null" {
			schema = emptySchema
		}
		out.Tools = append(out.Tools, outTool{
			Name: t.Name, Description: t.Description, InputSchema: schema, CacheControl: wireCacheOf(t.CacheControl),
		})
	}
	if len(out.Tools) > 0 {
		out.ToolChoice = encodeToolChoice(r.ToolChoice, r.ParallelToolCalls)
	}
	if r.User != "" {
		out.Metadata = &outMetadata{UserID: r.User}
	}
	encodeThinking(&out, r)
	return wirejson.Marshal(out)
}

func encodeSystem(parts []llm.Part) any {
	blocks := make([]outBlock, 0, len(parts))
	for _, p := range parts {
		if p.Text == "" {
			continue
		}
		blocks = append(blocks, textBlock(p.Text, p.CacheControl))
	}
	switch {
	case len(blocks) == 0:
		return nil
	case len(blocks) == 1 && blocks[0].CacheControl == nil:
		return *blocks[0].Text
	}
	return blocks
}

func textBlock(text, cache string) outBlock {
	return outBlock{Type: "text", Text: &text, CacheControl: wireCacheOf(cache)}
}

// encodeMessages maps the conversation to alternating user and assistant
// messages: tool results join the user side, consecutive same-role messages
// merge, and tool_result blocks lead each user message.
func (c *Codec) encodeMessages(msgs []llm.Message) []outMessage {
	out := make([]outMessage, 0, len(msgs))
	for _, m := range msgs {
		role := "user"
		switch m.Role {
		case llm.RoleAssistant:
			role = "assistant"
		case llm.RoleSystem, llm.RoleDeveloper:
			continue // moved to the system prompt
		}
		blocks := c.encodeParts(m.Content)
		if len(blocks) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			continue
		}
		out = append(out, outMessage{Role: role, Content: blocks})
	}
	for i := range out {
		if out[i].Role == "user" {
			resultsFirst(out[i].Content)
		}
	}
	return out
}

// resultsFirst stably moves tool_result blocks to the front.
func resultsFirst(blocks []outBlock) {
	var results, rest []outBlock
	for _, b := range blocks {
		if b.Type == "tool_result" {
			results = append(results, b)
		} else {
			rest = append(rest, b)
		}
	}
	if len(results) == 0 || len(rest) == 0 {
		return
	}
	copy(blocks, results)
	copy(blocks[len(results):], rest)
}

func (c *Codec) encodeParts(parts []llm.Part) []outBlock {
	blocks := make([]outBlock, 0, len(parts))
	for _, p := range parts {
		if b, ok := c.encodePart(p); ok {
			blocks = append(blocks, b)
		}
	}
	return blocks
}

func (c *Codec) encodePart(p llm.Part) (outBlock, bool) {
	cache := wireCacheOf(p.CacheControl)
	switch p.Type {
	case llm.PartText:
		if p.Text == "" {
			return outBlock{}, false // the API rejects empty text blocks
		}
		return textBlock(p.Text, p.CacheControl), true
	case llm.PartImage, llm.PartDocument:
		return mediaBlock(p), true
	case llm.PartToolCall:
		id := p.ID
		if id == "" {
			id = c.id("toolu_")
		}
		return outBlock{Type: "tool_use", ID: id, Name: p.Name, Input: objectArgs(p.Arguments), CacheControl: cache}, true
	case llm.PartToolResult:
		b := outBlock{Type: "tool_result", ToolUseID: p.ID, IsError: p.IsError, CacheControl: cache}
		inner := c.encodeParts(p.Result)
		switch {
		case len(inner) == 1 && inner[0].Type == "text" && inner[0].CacheControl == nil:
			b.Content = *inner[0].Text
		case len(inner) > 0:
			b.Content = inner
		}
		return b, true
	case llm.PartThinking:
		if p.Family != "anthropic" || p.Signature == "" {
			return outBlock{}, false
		}
		return outBlock{Type: "thinking", Thinking: &p.Text, Signature: &p.Signature}, true
	case llm.PartRedactedThinking:
		if p.Family != "anthropic" || p.Data == "" {
			return outBlock{}, false
		}
		return outBlock{Type: "redacted_thinking", Data: p.Data}, true
	}
	return outBlock{}, false
}

func mediaBlock(p llm.Part) outBlock {
	b := outBlock{Type: "image", Title: p.Name, CacheControl: wireCacheOf(p.CacheControl)}
	if p.Type == llm.PartDocument {
		b.Type = "document"
	} else {
		b.Title = ""
	}
	mediaType, data, url := p.MediaType, p.Data, p.URL
	if mt, d, ok := dataurl.Parse(url); ok {
		mediaType, data, url = mt, d, ""
	}
	switch {
	case url != "":
		b.Source = &outSource{Type: "url", URL: url}
	case b.Type == "document" && strings.HasPrefix(mediaType, "text/"):
		text, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			text = []byte(data)
		}
		b.Source = &outSource{Type: "text", MediaType: "text/plain", Data: string(text)}
	default:
		b.Source = &outSource{Type: "base64", MediaType: mediaType, Data: data}
	}
	return b
}

func encodeToolChoice(tc *llm.ToolChoice, parallel *bool) *outToolChoice {
	out := &outToolChoice{Type: "auto"}
	if tc != nil {
		switch tc.Mode {
		case llm.ToolChoiceNone:
			return &outToolChoice{Type: "none"}
		case llm.ToolChoiceRequired:
			out.Type = "any"
		case llm.ToolChoiceTool:
			out.Type, out.Name = "tool", tc.Name
		}
	} else if parallel == nil {
		return nil
	}
	if parallel != nil {
		disable := !*parallel
		out.DisableParallelToolUse = &disable
	}
	return out
}

// effortBudgets maps a reasoning effort to a thinking budget.
var effortBudgets = map[string]int{
	"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32768,
}

// minBudget is the smallest thinking budget the API accepts.
const minBudget = 1024

// encodeThinking sets the thinking config and the sampling limits it brings:
// the API wants budget_tokens below max_tokens, no top_k, temperature 1 and
// top_p of at least 0.95 while thinking, and a thinking block leading the
// assistant turn of an open tool loop.
func encodeThinking(out *outRequest, r *llm.Request) {
	t := r.Thinking
	if t == nil {
		return
	}
	if !t.Enabled || t.Effort == "none" {
		out.Thinking = &outThinking{Type: "disabled"}
		return
	}
	if !thinkingLeadsToolLoop(out.Messages) {
		return
	}
	budget := t.BudgetTokens
	if budget <= 0 {
		budget = effortBudgets[t.Effort]
		if budget == 0 {
			budget = effortBudgets["medium"]
		}
	}
	if budget < minBudget {
		budget = minBudget
	}
	if r.MaxTokens <= 0 {
		out.MaxTokens = budget + DefaultMaxTokens
	} else if budget >= out.MaxTokens {
		budget = out.MaxTokens - 1
		if budget < minBudget {
			return
		}
	}
	out.Thinking = &outThinking{Type: "enabled", BudgetTokens: budget}
	if out.Temperature != nil && *out.Temperature != 1 {
		out.Temperature = nil
	}
	if out.TopP != nil && *out.TopP < 0.95 {
		out.TopP = nil
	}
	out.TopK = nil
}

// thinkingLeadsToolLoop reports whether the last assistant message, when it
// calls tools, starts with a thinking block, as the API requires of a
// thinking-enabled request. It is false when a previous turn was served by
// another provider family whose reasoning could not be replayed.
func thinkingLeadsToolLoop(msgs []outMessage) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "assistant" {
			continue
		}
		blocks := msgs[i].Content
		hasToolUse := false
		for _, b := range blocks {
			hasToolUse = hasToolUse || b.Type == "tool_use"
		}
		return !hasToolUse || blocks[0].Type == "thinking" || blocks[0].Type == "redacted_thinking"
	}
	return true
}

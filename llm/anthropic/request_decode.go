package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// DecodeRequest parses a Messages request body. model, messages and
// max_tokens are required.
func (*Codec) DecodeRequest(body []byte) (*llm.Request, error) {
	return decodeRequest(body, true)
}

// DecodeCountRequest parses a /v1/messages/count_tokens body: a Messages
// request without max_tokens.
func (*Codec) DecodeCountRequest(body []byte) (*llm.Request, error) {
	return decodeRequest(body, false)
}

func decodeRequest(body []byte, needMaxTokens bool) (*llm.Request, error) {
	var in inRequest
	if err := wirejson.Unmarshal(body, &in, "", wirejson.Malformed); err != nil {
		return nil, err
	}
	model, err := modelOfValid(body)
	if err != nil {
		return nil, err
	}
	if model == "" {
		return nil, badRequest("model", "required")
	}
	switch {
	case in.MaxTokens == nil && needMaxTokens:
		return nil, badRequest("max_tokens", "required")
	case in.MaxTokens != nil && *in.MaxTokens < 1 && needMaxTokens:
		return nil, badRequest("max_tokens", "must be at least 1")
	}
	if wirejson.IsNull(in.Messages) {
		return nil, badRequest("messages", "required")
	}
	r := &llm.Request{
		Model: model, Temperature: in.Temperature, TopP: in.TopP, TopK: in.TopK,
		Stop: in.StopSequences, Stream: in.Stream,
	}
	if in.MaxTokens != nil {
		r.MaxTokens = *in.MaxTokens
	}
	if in.Metadata != nil {
		r.User = in.Metadata.UserID
	}
	if r.System, err = decodeSystem(in.System); err != nil {
		return nil, err
	}
	if r.Messages, err = decodeMessages(in.Messages); err != nil {
		return nil, err
	}
	if r.Tools, err = decodeTools(in.Tools); err != nil {
		return nil, err
	}
	if err := decodeToolChoice(in.ToolChoice, r); err != nil {
		return nil, err
	}
	if r.Thinking, err = decodeThinking(in.Thinking); err != nil {
		return nil, err
	}
	if f := in.OutputFormat; f != nil {
		if f.Type != "json_schema" {
			return nil, badRequest("output_format.type", fmt.Sprintf("unsupported output format %q", f.Type))
		}
		r.ResponseFormat = &llm.ResponseFormat{Type: "json_schema", Schema: f.Schema}
	}
	return r, nil
}

func decodeSystem(raw json.RawMessage) ([]llm.Part, error) {
	if wirejson.IsNull(raw) {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := wirejson.Unmarshal(raw, &s, "system", wirejson.Malformed); err != nil {
			return nil, err
		}
		if s == "" {
			return nil, nil
		}
		return []llm.Part{{Type: llm.PartText, Text: s}}, nil
	}
	blocks, err := wirejson.UnmarshalList[inBlock](raw, "system", wirejson.Malformed)
	if err != nil {
		return nil, err
	}
	parts := make([]llm.Part, 0, len(blocks))
	for i, b := range blocks {
		path := fmt.Sprintf("system[%d]", i)
		if b.Type != "text" {
			return nil, badRequest(path+".type", fmt.Sprintf("expected \"text\", got %q", b.Type))
		}
		parts = append(parts, llm.Part{Type: llm.PartText, Text: b.Text, CacheControl: cacheMark(b.CacheControl)})
	}
	return parts, nil
}

func decodeMessages(raw json.RawMessage) ([]llm.Message, error) {
	items, err := wirejson.UnmarshalList[inMessage](raw, "messages", wirejson.Malformed)
	if err != nil {
		return nil, err
	}
	msgs := make([]llm.Message, 0, len(items))
	for i, m := range items {
		path := fmt.Sprintf("messages[%d]", i)
		var role llm.Role
		switch m.Role {
		case "user":
			role = llm.RoleUser
		case "assistant":
			role = llm.RoleAssistant
		case "system":
			// A system message inside the conversation, as Claude Code sends
			// for its default model; it must be text.
			role = llm.RoleSystem
		case "":
			return nil, badRequest(path+".role", "required")
		default:
			return nil, badRequest(path+".role", fmt.Sprintf("unknown role %q", m.Role))
		}
		parts, err := decodeContent(m.Content, path+".content")
		if err != nil {
			return nil, err
		}
		switch role {
		case llm.RoleAssistant:
			msgs = append(msgs, llm.Message{Role: role, Content: parts})
		case llm.RoleSystem:
			for j, p := range parts {
				if p.Type != llm.PartText {
					return nil, badRequest(fmt.Sprintf("%s.content[%d].type", path, j), "a system message holds only text blocks")
				}
			}
			msgs = append(msgs, llm.Message{Role: role, Content: parts})
		default:
			msgs = appendUserTurn(msgs, parts)
		}
	}
	return msgs, nil
}

// appendUserTurn splits a user message into runs: tool results become a
// RoleTool message, the rest RoleUser messages, order kept.
func appendUserTurn(msgs []llm.Message, parts []llm.Part) []llm.Message {
	if len(parts) == 0 {
		return append(msgs, llm.Message{Role: llm.RoleUser, Content: parts})
	}
	start := 0
	for i := 1; i <= len(parts); i++ {
		if i < len(parts) && (parts[i].Type == llm.PartToolResult) == (parts[start].Type == llm.PartToolResult) {
			continue
		}
		role := llm.RoleUser
		if parts[start].Type == llm.PartToolResult {
			role = llm.RoleTool
		}
		msgs = append(msgs, llm.Message{Role: role, Content: parts[start:i:i]})
		start = i
	}
	return msgs
}

// decodeContent decodes a message's content: a string or an array of
// content blocks.
func decodeContent(raw json.RawMessage, path string) ([]llm.Part, error) {
	return wirejson.Content(raw, path, wirejson.Malformed, blockPart)
}

// decodeBlock decodes one content block. ok is false for server-side tool
// blocks, which have no canonical form and are left out.
func decodeBlock(raw json.RawMessage, path string) (p llm.Part, ok bool, err error) {
	var b inBlock
	if err := wirejson.Unmarshal(raw, &b, path, wirejson.Malformed); err != nil {
		return p, false, err
	}
	return blockPart(&b, path)
}

// blockPart maps a decoded content block to its canonical part.
func blockPart(b *inBlock, path string) (p llm.Part, ok bool, err error) {
	cache := cacheMark(b.CacheControl)
	switch b.Type {
	case "text":
		return llm.Part{Type: llm.PartText, Text: b.Text, CacheControl: cache}, true, nil
	case "image", "document":
		p, err := decodeSource(*b, path)
		p.CacheControl = cache
		return p, err == nil, err
	case "tool_use":
		if b.ID == "" {
			return p, false, badRequest(path+".id", "required")
		}
		if b.Name == "" {
			return p, false, badRequest(path+".name", "required")
		}
		args := "{}"
		if !wirejson.IsNull(b.Input) {
			args = compactJSON(b.Input)
		}
		return llm.Part{Type: llm.PartToolCall, ID: b.ID, Name: b.Name, Arguments: args, CacheControl: cache}, true, nil
	case "tool_result":
		if b.ToolUseID == "" {
			return p, false, badRequest(path+".tool_use_id", "required")
		}
		p = llm.Part{Type: llm.PartToolResult, ID: b.ToolUseID, IsError: b.IsError, CacheControl: cache}
		if !wirejson.IsNull(b.Content) {
			if p.Result, err = decodeContent(b.Content, path+".content"); err != nil {
				return p, false, err
			}
		}
		return p, true, nil
	case "thinking":
		return llm.Part{Type: llm.PartThinking, Text: b.Thinking, Signature: b.Signature, Family: "anthropic"}, true, nil
	case "redacted_thinking":
		return llm.Part{Type: llm.PartRedactedThinking, Data: b.Data, Family: "anthropic"}, true, nil
	case "":
		return p, false, badRequest(path+".type", "required")
	}
	if serverBlock(b.Type) {
		return p, false, nil
	}
	return p, false, badRequest(path+".type", fmt.Sprintf("unsupported content block type %q", b.Type))
}

// serverBlock reports whether t is one of the blocks of Anthropic's
// server-side tools (web search, code execution, MCP...), which only an
// Anthropic upstream understands; the same-format path forwards them intact.
func serverBlock(t string) bool {
	return strings.HasSuffix(t, "_tool_use") || strings.HasSuffix(t, "_tool_result") ||
		t == "container_upload" || t == "search_result"
}

func decodeSource(b inBlock, path string) (llm.Part, error) {
	typ := llm.PartImage
	if b.Type == "document" {
		typ = llm.PartDocument
	}
	p := llm.Part{Type: typ, Name: b.Title}
	s := b.Source
	if s == nil {
		return p, badRequest(path+".source", "required")
	}
	switch s.Type {
	case "base64":
		if s.MediaType == "" {
			return p, badRequest(path+".source.media_type", "required")
		}
		p.MediaType, p.Data = s.MediaType, s.Data
	case "url":
		if s.URL == "" {
			return p, badRequest(path+".source.url", "required")
		}
		p.URL = s.URL
	case "text":
		if typ != llm.PartDocument {
			return p, badRequest(path+".source.type", "a text source is only valid for a document")
		}
		p.MediaType = s.MediaType
		if p.MediaType == "" {
			p.MediaType = "text/plain"
		}
		p.Data = base64.StdEncoding.EncodeToString([]byte(s.Data))
	default:
		return p, badRequest(path+".source.type", fmt.Sprintf("unsupported source type %q", s.Type))
	}
	return p, nil
}

func decodeTools(raw json.RawMessage) ([]llm.Tool, error) {
	if wirejson.IsNull(raw) {
		return nil, nil
	}
	items, err := wirejson.UnmarshalList[inTool](raw, "tools", wirejson.Malformed)
	if err != nil {
		return nil, err
	}
	tools := make([]llm.Tool, 0, len(items))
	for i, t := range items {
		path := fmt.Sprintf("tools[%d]", i)
		if t.Type != "" && t.Type != "custom" {
			continue // a server tool (web_search_..., bash_...): Anthropic-only
		}
		if t.Name == "" {
			return nil, badRequest(path+".name", "required")
		}
		tool := llm.Tool{Name: t.Name, Description: t.Description, CacheControl: cacheMark(t.CacheControl)}
		if !wirejson.IsNull(t.InputSchema) {
			tool.Parameters = t.InputSchema
		}
		tools = append(tools, tool)
	}
	return tools, nil
}

func decodeToolChoice(raw json.RawMessage, r *llm.Request) error {
	if wirejson.IsNull(raw) {
		return nil
	}
	var tc inToolChoice
	if err := wirejson.Unmarshal(raw, &tc, "tool_choice", wirejson.Malformed); err != nil {
		return err
	}
	choice := &llm.ToolChoice{}
	switch tc.Type {
	case "auto":
		choice.Mode = llm.ToolChoiceAuto
	case "any":
		choice.Mode = llm.ToolChoiceRequired
	case "none":
		choice.Mode = llm.ToolChoiceNone
	case "tool":
		if tc.Name == "" {
			return badRequest("tool_choice.name", "required")
		}
		choice.Mode, choice.Name = llm.ToolChoiceTool, tc.Name
	default:
		return badRequest("tool_choice.type", fmt.Sprintf("unknown tool choice %q", tc.Type))
	}
	r.ToolChoice = choice
	if tc.DisableParallelToolUse != nil {
		parallel := !*tc.DisableParallelToolUse
		r.ParallelToolCalls = &parallel
	}
	return nil
}

func decodeThinking(t *inThinking) (*llm.Thinking, error) {
	if t == nil {
		return nil, nil
	}
	switch t.Type {
	case "enabled":
		return &llm.Thinking{Enabled: true, BudgetTokens: t.BudgetTokens}, nil
	case "adaptive":
		return &llm.Thinking{Enabled: true}, nil
	case "disabled":
		return &llm.Thinking{}, nil
	}
	return nil, badRequest("thinking.type", fmt.Sprintf("unknown thinking type %q", t.Type))
}

// cacheMark renders a cache_control object as Part.CacheControl.
func cacheMark(c *wireCache) string {
	switch {
	case c == nil:
		return ""
	case c.TTL != "":
		return c.Type + ";ttl=" + c.TTL
	}
	return c.Type
}

// wireCacheOf is the inverse of cacheMark.
func wireCacheOf(mark string) *wireCache {
	if mark == "" {
		return nil
	}
	typ, ttl, _ := strings.Cut(mark, ";ttl=")
	return &wireCache{Type: typ, TTL: ttl}
}

package openaichat

import (
	"strings"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/dataurl"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// EncodeRequest renders r as a Chat Completions request body for an
// upstream. Thinking parts are dropped (the API takes no reasoning input)
// and a stream always asks for usage.
func (c *Codec) EncodeRequest(r *llm.Request) ([]byte, error) {
	out := outRequest{
		Model: r.Model, Temperature: r.Temperature, TopP: r.TopP, Stop: r.Stop, Seed: r.Seed,
		Stream: r.Stream, User: r.User, Metadata: r.Metadata,
	}
	if c.LegacyMaxTokens {
		out.MaxTokens = r.MaxTokens
	} else {
		out.MaxCompletionTokens = r.MaxTokens
	}
	if r.Stream {
		out.StreamOptions = &inStreamOptions{IncludeUsage: true}
	}
	out.Messages = make([]outMessage, 0, len(r.System)+len(r.Messages))
	for _, p := range r.System {
		if p.Text != "" {
			out.Messages = append(out.Messages, outMessage{Role: "system", Content: p.Text})
		}
	}
	out.Messages = c.encodeMessages(out.Messages, r.Messages)
	for _, t := range r.Tools {
		params := t.Parameters
		if string(params) == "null" {
			params = nil
		}
		out.Tools = append(out.Tools, outTool{Type: "function", Function: outToolFunction{
			Name: t.Name, Description: t.Description, Parameters: params, Strict: t.Strict,
		}})
	}
	if len(out.Tools) > 0 {
		out.ToolChoice = encodeToolChoice(r.ToolChoice)
		out.ParallelToolCalls = r.ParallelToolCalls
	}
	if f := r.ResponseFormat; f != nil {
		out.ResponseFormat = &outResponseFormat{Type: f.Type}
		if f.Type == "json_schema" {
			name := f.Name
			if name == "" {
				name = "response"
			}
			out.ResponseFormat.JSONSchema = &outJSONSchema{Name: name, Schema: f.Schema, Strict: f.Strict}
		}
	}
	out.ReasoningEffort = reasoningEffort(r.Thinking)
	return wirejson.Marshal(out)
}

func encodeToolChoice(tc *llm.ToolChoice) any {
	if tc == nil {
		return nil
	}
	switch tc.Mode {
	case llm.ToolChoiceNone:
		return "none"
	case llm.ToolChoiceRequired:
		return "required"
	case llm.ToolChoiceTool:
		return outNamedChoice{Type: "function", Function: outNamedFunc{Name: tc.Name}}
	}
	return "auto"
}

// reasoningEffort maps a thinking config to reasoning_effort: an explicit
// effort wins, else the budget picks one; "" leaves the model's default.
func reasoningEffort(t *llm.Thinking) string {
	switch {
	case t == nil:
		return ""
	case t.Effort != "":
		return t.Effort
	case !t.Enabled:
		return ""
	case t.BudgetTokens == 0:
		return "medium"
	case t.BudgetTokens < 4096:
		return "low"
	case t.BudgetTokens < 16384:
		return "medium"
	}
	return "high"
}

// encodeMessages appends the conversation to out. Tool results become one
// tool message each, placed before any other content of their message so
// they follow the assistant's tool calls; their images, which tool messages
// cannot carry, follow the run of tool messages in a user message.
func (c *Codec) encodeMessages(out []outMessage, msgs []llm.Message) []outMessage {
	var images []outPart // images of tool results not yet written
	flush := func() {
		if len(images) > 0 {
			out = append(out, outMessage{Role: "user", Content: images})
			images = nil
		}
	}
	for _, m := range msgs {
		var rest []llm.Part
		for _, p := range m.Content {
			if p.Type != llm.PartToolResult {
				rest = append(rest, p)
				continue
			}
			text, imgs := toolResultContent(p.Result)
			out = append(out, outMessage{Role: "tool", Content: text, ToolCallID: p.ID})
			images = append(images, imgs...)
		}
		if len(rest) == 0 {
			continue
		}
		switch m.Role {
		case llm.RoleAssistant:
			if msg, ok := c.assistantMessage(m.Name, rest); ok {
				flush()
				out = append(out, msg)
			}
		case llm.RoleSystem, llm.RoleDeveloper:
			if text := joinText(rest); text != "" {
				flush()
				out = append(out, outMessage{Role: string(m.Role), Content: text})
			}
		default:
			if content, ok := userContent(rest); ok {
				if len(images) > 0 {
					// Merge the tool results' images into this user turn.
					content = append(images, content...)
					images = nil
				}
				out = append(out, outMessage{Role: "user", Content: simplify(content), Name: m.Name})
			}
		}
	}
	flush()
	return out
}

func (c *Codec) assistantMessage(name string, parts []llm.Part) (outMessage, bool) {
	msg := outMessage{Role: "assistant", Name: name}
	var text strings.Builder
	hasText := false
	for _, p := range parts {
		switch p.Type {
		case llm.PartText:
			text.WriteString(p.Text)
			hasText = hasText || p.Text != ""
		case llm.PartToolCall:
			id := p.ID
			if id == "" {
				id = c.id("call_")
			}
			args := p.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			msg.ToolCalls = append(msg.ToolCalls, outToolCall{
				ID: id, Type: "function", Function: outFunction{Name: p.Name, Arguments: args},
			})
		}
	}
	if hasText {
		msg.Content = text.String()
	}
	return msg, hasText || len(msg.ToolCalls) > 0
}

// userContent renders user parts; ok is false when none can be sent.
func userContent(parts []llm.Part) ([]outPart, bool) {
	out := make([]outPart, 0, len(parts))
	for _, p := range parts {
		if op, ok := userPart(p); ok {
			out = append(out, op)
		}
	}
	return out, len(out) > 0
}

func userPart(p llm.Part) (outPart, bool) {
	switch p.Type {
	case llm.PartText:
		if p.Text == "" {
			return outPart{}, false
		}
		return textPart(p.Text), true
	case llm.PartImage:
		url := p.URL
		if url == "" {
			url = dataurl.Format(p.MediaType, p.Data)
		}
		return outPart{Type: "image_url", ImageURL: &outImage{URL: url}}, true
	case llm.PartDocument:
		if p.URL != "" && !strings.HasPrefix(p.URL, "data:") {
			// File parts take only inline data; pass the link as text.
			return textPart(p.URL), true
		}
		data := p.URL
		if data == "" {
			data = dataurl.Format(p.MediaType, p.Data)
		}
		return outPart{Type: "file", File: &outFile{Filename: p.Name, FileData: data}}, true
	}
	return outPart{}, false
}

func textPart(s string) outPart { return outPart{Type: "text", Text: &s} }

// simplify writes a lone text part as a plain string, as clients usually do.
func simplify(parts []outPart) any {
	if len(parts) == 1 && parts[0].Type == "text" {
		return *parts[0].Text
	}
	return parts
}

// toolResultContent renders a tool result as a tool message's text and the
// images it carried.
func toolResultContent(result []llm.Part) (string, []outPart) {
	var texts []string
	var images []outPart
	for _, p := range result {
		switch p.Type {
		case llm.PartText:
			texts = append(texts, p.Text)
		case llm.PartImage, llm.PartDocument:
			if op, ok := userPart(p); ok {
				images = append(images, op)
			}
		}
	}
	return strings.Join(texts, "\n"), images
}

func joinText(parts []llm.Part) string {
	var texts []string
	for _, p := range parts {
		if p.Type == llm.PartText && p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

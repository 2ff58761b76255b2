package openaichat

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/dataurl"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// DecodeRequest parses a Chat Completions request body. model and messages
// are required.
func (*Codec) DecodeRequest(body []byte) (*llm.Request, error) {
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
	if wirejson.IsNull(in.Messages) {
		return nil, badRequest("messages", "required")
	}
	if in.N != nil && *in.N != 1 {
		return nil, badRequest("n", "only n=1 is supported")
	}
	r := &llm.Request{
		Model: model, ParallelToolCalls: in.ParallelToolCalls, Temperature: in.Temperature, TopP: in.TopP,
		Seed: in.Seed, Stream: in.Stream, User: in.User, Metadata: in.Metadata,
	}
	switch {
	case in.MaxCompletionTokens != nil:
		r.MaxTokens = *in.MaxCompletionTokens
	case in.MaxTokens != nil:
		r.MaxTokens = *in.MaxTokens
	}
	if r.MaxTokens < 0 {
		return nil, badRequest("max_completion_tokens", "must not be negative")
	}
	if in.StreamOptions != nil {
		r.StreamUsage = in.StreamOptions.IncludeUsage
	}
	if in.ReasoningEffort != nil && *in.ReasoningEffort != "" {
		e := *in.ReasoningEffort
		r.Thinking = &llm.Thinking{Enabled: e != "none", Effort: e}
	}
	if r.Stop, err = decodeStop(in.Stop); err != nil {
		return nil, err
	}
	if r.ResponseFormat, err = decodeResponseFormat(in.ResponseFormat); err != nil {
		return nil, err
	}
	if err := decodeMessages(in.Messages, r); err != nil {
		return nil, err
	}
	if r.Tools, err = decodeTools(in.Tools); err != nil {
		return nil, err
	}
	if r.ToolChoice, err = decodeToolChoice(in.ToolChoice); err != nil {
		return nil, err
	}
	return r, nil
}

func decodeStop(raw json.RawMessage) ([]string, error) {
	if wirejson.IsNull(raw) {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := wirejson.Unmarshal(raw, &s, "stop", wirejson.Malformed); err != nil {
			return nil, err
		}
		return []string{s}, nil
	}
	var list []string
	if err := wirejson.Unmarshal(raw, &list, "stop", wirejson.Malformed); err != nil {
		return nil, err
	}
	return list, nil
}

func decodeResponseFormat(f *inResponseFormat) (*llm.ResponseFormat, error) {
	if f == nil {
		return nil, nil
	}
	switch f.Type {
	case "text", "":
		return nil, nil
	case "json_object":
		return &llm.ResponseFormat{Type: "json_object"}, nil
	case "json_schema":
		if f.JSONSchema == nil {
			return nil, badRequest("response_format.json_schema", "required")
		}
		s := f.JSONSchema
		return &llm.ResponseFormat{Type: "json_schema", Name: s.Name, Schema: s.Schema, Strict: s.Strict}, nil
	}
	return nil, badRequest("response_format.type", fmt.Sprintf("unknown response format %q", f.Type))
}

func decodeMessages(raw json.RawMessage, r *llm.Request) error {
	items, err := wirejson.UnmarshalList[inMessage](raw, "messages", wirejson.Malformed)
	if err != nil {
		return err
	}
	r.Messages = make([]llm.Message, 0, len(items))
	for i, m := range items {
		path := fmt.Sprintf("messages[%d]", i)
		switch m.Role {
		case "system", "developer":
			parts, err := decodeParts(m.Content, path+".content", true)
			if err != nil {
				return err
			}
			r.System = append(r.System, parts...)
		case "user":
			parts, err := decodeParts(m.Content, path+".content", false)
			if err != nil {
				return err
			}
			r.Messages = append(r.Messages, llm.Message{Role: llm.RoleUser, Content: parts, Name: m.Name})
		case "assistant":
			msg, err := decodeAssistant(m, path)
			if err != nil {
				return err
			}
			r.Messages = append(r.Messages, msg)
		case "tool":
			if m.ToolCallID == "" {
				return badRequest(path+".tool_call_id", "required")
			}
			parts, err := decodeParts(m.Content, path+".content", true)
			if err != nil {
				return err
			}
			r.Messages = append(r.Messages, llm.Message{Role: llm.RoleTool, Content: []llm.Part{{
				Type: llm.PartToolResult, ID: m.ToolCallID, Result: parts,
			}}})
		case "":
			return badRequest(path+".role", "required")
		default:
			return badRequest(path+".role", fmt.Sprintf("unknown role %q", m.Role))
		}
	}
	return nil
}

func decodeAssistant(m inMessage, path string) (llm.Message, error) {
	msg := llm.Message{Role: llm.RoleAssistant, Name: m.Name}
	if !wirejson.IsNull(m.Content) {
		parts, err := decodeParts(m.Content, path+".content", true)
		if err != nil {
			return msg, err
		}
		for _, p := range parts {
			if p.Text != "" {
				msg.Content = append(msg.Content, p)
			}
		}
	}
	if m.Refusal != nil && *m.Refusal != "" && len(msg.Content) == 0 {
		msg.Content = append(msg.Content, llm.Part{Type: llm.PartText, Text: *m.Refusal})
	}
	if wirejson.IsNull(m.ToolCalls) {
		return msg, nil
	}
	calls, err := wirejson.UnmarshalList[inToolCall](m.ToolCalls, path+".tool_calls", wirejson.Malformed)
	if err != nil {
		return msg, err
	}
	for j, tc := range calls {
		cpath := fmt.Sprintf("%s.tool_calls[%d]", path, j)
		if tc.ID == "" {
			return msg, badRequest(cpath+".id", "required")
		}
		if tc.Function.Name == "" {
			return msg, badRequest(cpath+".function.name", "required")
		}
		args := tc.Function.Arguments
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		msg.Content = append(msg.Content, llm.Part{Type: llm.PartToolCall, ID: tc.ID, Name: tc.Function.Name, Arguments: args})
	}
	return msg, nil
}

// decodeParts decodes a message's content: a string or an array of parts.
// textOnly restricts the array to text (and refusal) parts.
func decodeParts(raw json.RawMessage, path string, textOnly bool) ([]llm.Part, error) {
	return wirejson.Content(raw, path, wirejson.Malformed, func(p *inPart, path string) (llm.Part, bool, error) {
		part, err := decodePart(*p, path, textOnly)
		return part, true, err
	})
}

func decodePart(p inPart, path string, textOnly bool) (llm.Part, error) {
	switch {
	case p.Type == "text":
		return llm.Part{Type: llm.PartText, Text: p.Text, CacheControl: cacheMark(p.CacheControl)}, nil
	case p.Type == "refusal":
		return llm.Part{Type: llm.PartText, Text: p.Refusal}, nil
	case p.Type == "":
		return llm.Part{}, badRequest(path+".type", "required")
	case textOnly:
		return llm.Part{}, badRequest(path+".type", fmt.Sprintf("only text parts are allowed here, got %q", p.Type))
	case p.Type == "image_url":
		if p.ImageURL == nil || p.ImageURL.URL == "" {
			return llm.Part{}, badRequest(path+".image_url.url", "required")
		}
		part := llm.Part{Type: llm.PartImage, URL: p.ImageURL.URL}
		if mt, data, ok := dataurl.Parse(part.URL); ok {
			part.URL, part.MediaType, part.Data = "", mt, data
		}
		return part, nil
	case p.Type == "file":
		return decodeFile(p.File, path)
	}
	return llm.Part{}, badRequest(path+".type", fmt.Sprintf("unsupported content part type %q", p.Type))
}

func decodeFile(f *inFile, path string) (llm.Part, error) {
	switch {
	case f == nil:
		return llm.Part{}, badRequest(path+".file", "required")
	case f.FileID != "" && f.FileData == "":
		return llm.Part{}, badRequest(path+".file.file_id", "uploaded file ids are not supported; send file_data")
	case f.FileData == "":
		return llm.Part{}, badRequest(path+".file.file_data", "required")
	}
	part := llm.Part{Type: llm.PartDocument, Name: f.Filename, MediaType: "application/pdf", Data: f.FileData}
	if mt, data, ok := dataurl.Parse(f.FileData); ok {
		part.MediaType, part.Data = mt, data
	}
	return part, nil
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
		if t.Type != "function" {
			return nil, badRequest(path+".type", fmt.Sprintf("unsupported tool type %q", t.Type))
		}
		if t.Function == nil || t.Function.Name == "" {
			return nil, badRequest(path+".function.name", "required")
		}
		f := t.Function
		tool := llm.Tool{Name: f.Name, Description: f.Description, Strict: f.Strict}
		if !wirejson.IsNull(f.Parameters) {
			tool.Parameters = f.Parameters
		}
		tools = append(tools, tool)
	}
	return tools, nil
}

func decodeToolChoice(raw json.RawMessage) (*llm.ToolChoice, error) {
	if wirejson.IsNull(raw) {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := wirejson.Unmarshal(raw, &s, "tool_choice", wirejson.Malformed); err != nil {
			return nil, err
		}
		switch s {
		case "auto":
			return &llm.ToolChoice{Mode: llm.ToolChoiceAuto}, nil
		case "none":
			return &llm.ToolChoice{Mode: llm.ToolChoiceNone}, nil
		case "required":
			return &llm.ToolChoice{Mode: llm.ToolChoiceRequired}, nil
		}
		return nil, badRequest("tool_choice", fmt.Sprintf("unknown tool choice %q", s))
	}
	var c inNamedChoice
	if err := wirejson.Unmarshal(raw, &c, "tool_choice", wirejson.Malformed); err != nil {
		return nil, err
	}
	if c.Type != "function" {
		return nil, badRequest("tool_choice.type", fmt.Sprintf("unsupported tool choice type %q", c.Type))
	}
	if c.Function.Name == "" {
		return nil, badRequest("tool_choice.function.name", "required")
	}
	return &llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: c.Function.Name}, nil
}

func cacheMark(c *wireCache) string {
	switch {
	case c == nil:
		return ""
	case c.TTL != "":
		return c.Type + ";ttl=" + c.TTL
	}
	return c.Type
}

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
// are required. The common shapes take one pass (fastRequest); anything
// else, errors included, goes through encoding/json (decodeRequestJSON).
func (*Codec) DecodeRequest(body []byte) (*llm.Request, error) {
	if in, model, ok := fastRequest(body); ok {
		return requestOf(&in, model)
	}
	return decodeRequestJSON(body)
}

// decodeRequestJSON is DecodeRequest through encoding/json, for every
// shape.
func decodeRequestJSON(body []byte) (*llm.Request, error) {
	var in inRequest
	if err := wirejson.Unmarshal(body, &in, "", wirejson.Malformed); err != nil {
		return nil, err
	}
	model, err := modelOfValid(body)
	if err != nil {
		return nil, err
	}
	return requestOf(&in, model)
}

// requestOf checks and converts a decoded request; the polymorphic members
// are decoded here, one after the other, unless fastRequest read them.
func requestOf(in *inRequest, model string) (*llm.Request, error) {
	if model == "" {
		return nil, badRequest("model", "required")
	}
	if in.noMessages() {
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
	var err error
	if r.Stop, err = in.stopList(); err != nil {
		return nil, err
	}
	if r.ResponseFormat, err = decodeResponseFormat(in.ResponseFormat); err != nil {
		return nil, err
	}
	if err := decodeMessages(in, r); err != nil {
		return nil, err
	}
	if r.Tools, err = decodeTools(in); err != nil {
		return nil, err
	}
	if r.ToolChoice, err = decodeToolChoice(in); err != nil {
		return nil, err
	}
	return r, nil
}

// noMessages reports whether messages is absent or null.
func (in *inRequest) noMessages() bool {
	if in.fast {
		return in.messages == nil
	}
	return wirejson.IsNull(in.Messages)
}

func (in *inRequest) stopList() ([]string, error) {
	if in.fast {
		return in.stop, nil
	}
	return decodeStop(in.Stop)
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

func decodeMessages(in *inRequest, r *llm.Request) error {
	items := in.messages
	if !in.fast {
		var err error
		if items, err = wirejson.UnmarshalList[inMessage](in.Messages, "messages", wirejson.Malformed); err != nil {
			return err
		}
	}
	r.Messages = make([]llm.Message, 0, len(items))
	for i := range items {
		m := &items[i]
		path := fmt.Sprintf("messages[%d]", i)
		switch m.Role {
		case "system", "developer":
			parts, err := m.contentParts(path+".content", true)
			if err != nil {
				return err
			}
			r.System = append(r.System, parts...)
		case "user":
			parts, err := m.contentParts(path+".content", false)
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
			parts, err := m.contentParts(path+".content", true)
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

func decodeAssistant(m *inMessage, path string) (llm.Message, error) {
	msg := llm.Message{Role: llm.RoleAssistant, Name: m.Name}
	if m.hasContent() {
		parts, err := m.contentParts(path+".content", true)
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
	calls := m.toolCalls
	if !m.fast {
		if wirejson.IsNull(m.ToolCalls) {
			return msg, nil
		}
		var err error
		if calls, err = wirejson.UnmarshalList[inToolCall](m.ToolCalls, path+".tool_calls", wirejson.Malformed); err != nil {
			return msg, err
		}
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

// hasContent reports whether the message's content is present and not null.
func (m *inMessage) hasContent() bool {
	if m.fast {
		return m.content != readNull
	}
	return !wirejson.IsNull(m.Content)
}

// contentParts decodes a message's content: a string or an array of parts.
// textOnly restricts the array to text (and refusal) parts.
func (m *inMessage) contentParts(path string, textOnly bool) ([]llm.Part, error) {
	if !m.fast {
		return decodeParts(m.Content, path, textOnly)
	}
	var text *string
	if m.content == readText {
		text = &m.text
	}
	return wirejson.ReadContent(m.content == readNull, text, m.parts, path, partDecoder(textOnly))
}

// decodeParts decodes raw content: a string or an array of parts.
func decodeParts(raw json.RawMessage, path string, textOnly bool) ([]llm.Part, error) {
	return wirejson.Content(raw, path, wirejson.Malformed, partDecoder(textOnly))
}

func partDecoder(textOnly bool) func(p *inPart, path string) (llm.Part, bool, error) {
	return func(p *inPart, path string) (llm.Part, bool, error) {
		part, err := decodePart(*p, path, textOnly)
		return part, true, err
	}
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

func decodeTools(in *inRequest) ([]llm.Tool, error) {
	items := in.tools
	if !in.fast {
		if wirejson.IsNull(in.Tools) {
			return nil, nil
		}
		var err error
		if items, err = wirejson.UnmarshalList[inTool](in.Tools, "tools", wirejson.Malformed); err != nil {
			return nil, err
		}
	} else if items == nil {
		return nil, nil
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

func decodeToolChoice(in *inRequest) (*llm.ToolChoice, error) {
	if !in.fast {
		if err := decodeToolChoiceJSON(in); err != nil {
			return nil, err
		}
	}
	c := &in.choice
	switch c.kind {
	case readNull:
		return nil, nil
	case readText:
		switch c.mode {
		case "auto":
			return &llm.ToolChoice{Mode: llm.ToolChoiceAuto}, nil
		case "none":
			return &llm.ToolChoice{Mode: llm.ToolChoiceNone}, nil
		case "required":
			return &llm.ToolChoice{Mode: llm.ToolChoiceRequired}, nil
		}
		return nil, badRequest("tool_choice", fmt.Sprintf("unknown tool choice %q", c.mode))
	}
	if c.named.Type != "function" {
		return nil, badRequest("tool_choice.type", fmt.Sprintf("unsupported tool choice type %q", c.named.Type))
	}
	if c.named.Function.Name == "" {
		return nil, badRequest("tool_choice.function.name", "required")
	}
	return &llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: c.named.Function.Name}, nil
}

// decodeToolChoiceJSON decodes the raw tool_choice into in.choice.
func decodeToolChoiceJSON(in *inRequest) error {
	raw := in.ToolChoice
	switch {
	case wirejson.IsNull(raw):
		return nil
	case raw[0] == '"':
		var s string
		err := wirejson.Unmarshal(raw, &s, "tool_choice", wirejson.Malformed)
		in.choice = readChoice{kind: readText, mode: s}
		return err
	}
	var named inNamedChoice
	err := wirejson.Unmarshal(raw, &named, "tool_choice", wirejson.Malformed)
	in.choice = readChoice{kind: readObject, named: named}
	return err
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

package responses

import (
	"encoding/json"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// DecodeRequest parses a Responses request body into the canonical model.
// Errors are *llm.BadRequestError naming the offending field.
func (*Codec) DecodeRequest(body []byte) (*llm.Request, error) {
	if wirejson.FirstByte(body) != '{' {
		return nil, badRequest("", "body must be a JSON object")
	}
	var w wireRequest
	if err := unmarshal(body, &w, ""); err != nil {
		return nil, err
	}
	model, err := modelOf(body)
	if err != nil {
		return nil, err
	}
	req := &llm.Request{Model: model, Metadata: w.Metadata}
	if !wirejson.IsNull(w.Instructions) {
		var instr string
		if err := unmarshal(w.Instructions, &instr, "instructions"); err != nil {
			return nil, err
		}
		if instr != "" {
			req.System = append(req.System, llm.Part{Type: llm.PartText, Text: instr})
		}
	}
	if err := decodeInput(w.Input, req); err != nil {
		return nil, err
	}
	if err := decodeTools(w.Tools, req); err != nil {
		return nil, err
	}
	choice, err := decodeToolChoice(w.ToolChoice)
	if err != nil {
		return nil, err
	}
	req.ToolChoice = choice
	req.ParallelToolCalls = w.ParallelToolCalls
	req.Thinking = decodeReasoning(w.Reasoning)
	if w.Text != nil && w.Text.Format != nil {
		rf, err := decodeFormat(w.Text.Format)
		if err != nil {
			return nil, err
		}
		req.ResponseFormat = rf
	}
	if w.MaxOutputTokens != nil {
		if *w.MaxOutputTokens < 0 {
			return nil, badRequest("max_output_tokens", "must not be negative")
		}
		req.MaxTokens = *w.MaxOutputTokens
	}
	req.Temperature, req.TopP = w.Temperature, w.TopP
	if w.Stream != nil && *w.Stream {
		// A Responses stream always ends with usage (response.completed).
		req.Stream, req.StreamUsage = true, true
	}
	if w.User != nil {
		req.User = *w.User
	}
	return req, nil
}

// decodeTools keeps function tools and skips hosted ones.
func decodeTools(raws []json.RawMessage, req *llm.Request) error {
	for i, raw := range raws {
		path := wirejson.Index("tools", i)
		var t wireTool
		if err := unmarshal(raw, &t, path); err != nil {
			return err
		}
		if t.Type != "function" {
			continue
		}
		if t.Name == "" {
			return badRequest(path+".name", "required")
		}
		tool := llm.Tool{Name: t.Name, Description: t.Description}
		if !wirejson.IsNull(t.Parameters) {
			if wirejson.FirstByte(t.Parameters) != '{' {
				return badRequest(path+".parameters", "must be a JSON Schema object")
			}
			tool.Parameters = append(json.RawMessage(nil), t.Parameters...)
		}
		if t.Strict != nil {
			tool.Strict = *t.Strict
		}
		req.Tools = append(req.Tools, tool)
	}
	return nil
}

// decodeToolChoice reads tool_choice: a mode string or an object naming a tool.
func decodeToolChoice(raw json.RawMessage) (*llm.ToolChoice, error) {
	if wirejson.IsNull(raw) {
		return nil, nil
	}
	if wirejson.FirstByte(raw) == '"' {
		var mode string
		if err := unmarshal(raw, &mode, "tool_choice"); err != nil {
			return nil, err
		}
		switch mode {
		case "auto":
			return &llm.ToolChoice{Mode: llm.ToolChoiceAuto}, nil
		case "none":
			return &llm.ToolChoice{Mode: llm.ToolChoiceNone}, nil
		case "required":
			return &llm.ToolChoice{Mode: llm.ToolChoiceRequired}, nil
		}
		return nil, badRequestf("tool_choice", "unknown mode %q", mode)
	}
	var obj struct {
		Type string `json:"type"`
		Name string `json:"name"`
		Mode string `json:"mode"`
	}
	if err := unmarshal(raw, &obj, "tool_choice"); err != nil {
		return nil, err
	}
	switch obj.Type {
	case "function":
		if obj.Name == "" {
			return nil, badRequest("tool_choice.name", "required")
		}
		return &llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: obj.Name}, nil
	case "allowed_tools":
		if obj.Mode == "required" {
			return &llm.ToolChoice{Mode: llm.ToolChoiceRequired}, nil
		}
		return &llm.ToolChoice{Mode: llm.ToolChoiceAuto}, nil
	case "":
		return nil, badRequest("tool_choice.type", "required")
	}
	// A hosted tool (web_search_preview, file_search, ...): no canonical form.
	return nil, nil
}

// decodeReasoning maps reasoning {effort, summary} to canonical Thinking. A
// summary alone (Codex always sends summary "auto") only asks to see what
// the model reasons anyway, so it does not turn thinking on elsewhere.
func decodeReasoning(r *wireReasoning) *llm.Thinking {
	if r == nil {
		return nil
	}
	effort := ""
	if r.Effort != nil {
		effort = *r.Effort
	}
	switch {
	case effort == "none":
		return &llm.Thinking{Enabled: false, Effort: effort}
	case effort != "":
		return &llm.Thinking{Enabled: true, Effort: effort}
	}
	return nil
}

// decodeFormat maps text.format to a canonical ResponseFormat (nil for text).
func decodeFormat(f *wireFormat) (*llm.ResponseFormat, error) {
	switch f.Type {
	case "text", "":
		return nil, nil
	case "json_object":
		return &llm.ResponseFormat{Type: "json_object"}, nil
	case "json_schema":
		if wirejson.IsNull(f.Schema) || wirejson.FirstByte(f.Schema) != '{' {
			return nil, badRequest("text.format.schema", "required, a JSON Schema object")
		}
		rf := &llm.ResponseFormat{Type: "json_schema", Name: f.Name, Schema: append(json.RawMessage(nil), f.Schema...)}
		if f.Strict != nil {
			rf.Strict = *f.Strict
		}
		return rf, nil
	}
	return nil, badRequestf("text.format.type", "unknown format %q", f.Type)
}

package gemini

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// DecodeRequest parses a generateContent request body. The model and the
// stream flag are in the URL: the caller sets Request.Model and Stream.
func (*Codec) DecodeRequest(body []byte) (*llm.Request, error) {
	if wirejson.FirstByte(body) != '{' {
		return nil, badRequest("", "body must be a JSON object")
	}
	var w wireRequest
	if err := unmarshal(body, &w, ""); err != nil {
		return nil, err
	}
	req := &llm.Request{}
	if sys := orRaw(w.SystemInstruction, w.SystemInstructionS); !wirejson.IsNull(sys) {
		parts, err := decodeSystem(sys)
		if err != nil {
			return nil, err
		}
		req.System = parts
	}
	if len(w.Contents) == 0 {
		return nil, badRequest("contents", "required, a non-empty array")
	}
	msgs, err := decodeContents(w.Contents)
	if err != nil {
		return nil, err
	}
	req.Messages = msgs
	if err := decodeTools(w.Tools, req); err != nil {
		return nil, err
	}
	if tc := or(w.ToolConfig, w.ToolConfigS); tc != nil {
		req.ToolChoice = decodeToolConfig(tc)
	}
	if gc := or(w.GenerationConfig, w.GenerationConfigS); gc != nil {
		if err := decodeGenConfig(gc, req); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// decodeSystem reads systemInstruction: a Content whose text parts are the
// system prompt (a bare string is accepted too).
func decodeSystem(raw json.RawMessage) ([]llm.Part, error) {
	const path = "systemInstruction"
	if wirejson.FirstByte(raw) == '"' {
		var text string
		if err := unmarshal(raw, &text, path); err != nil {
			return nil, err
		}
		return []llm.Part{{Type: llm.PartText, Text: text}}, nil
	}
	var c wireContent
	if err := unmarshal(raw, &c, path); err != nil {
		return nil, err
	}
	var parts []llm.Part
	for i, r := range c.Parts {
		var p wirePart
		if err := unmarshal(r, &p, wirejson.Index(path+".parts", i)); err != nil {
			return nil, err
		}
		if p.Text != nil && *p.Text != "" {
			parts = append(parts, llm.Part{Type: llm.PartText, Text: *p.Text})
		}
	}
	return parts, nil
}

// decodeTools keeps function declarations; other tools (googleSearch,
// codeExecution, ...) have no canonical form and are skipped.
func decodeTools(raws []json.RawMessage, req *llm.Request) error {
	for i, raw := range raws {
		path := wirejson.Index("tools", i)
		var t wireTool
		if err := unmarshal(raw, &t, path); err != nil {
			return err
		}
		decls := orSlice(t.FunctionDeclarations, t.FunctionDeclarationsS)
		for j, d := range decls {
			dpath := wirejson.Index(path+".functionDeclarations", j)
			tool, err := decodeDecl(d, dpath)
			if err != nil {
				return err
			}
			req.Tools = append(req.Tools, tool)
		}
	}
	return nil
}

func decodeDecl(raw json.RawMessage, path string) (llm.Tool, error) {
	var d wireDecl
	if err := unmarshal(raw, &d, path); err != nil {
		return llm.Tool{}, err
	}
	if d.Name == "" {
		return llm.Tool{}, badRequest(path+".name", "required")
	}
	tool := llm.Tool{Name: d.Name, Description: d.Description}
	if js := orRaw(d.ParametersJSONSchema, d.ParametersJSONSchemaS); !wirejson.IsNull(js) {
		if wirejson.FirstByte(js) != '{' {
			return llm.Tool{}, badRequest(path+".parametersJsonSchema", "must be a JSON Schema object")
		}
		tool.Parameters = compact(js)
	} else if !wirejson.IsNull(d.Parameters) {
		if wirejson.FirstByte(d.Parameters) != '{' {
			return llm.Tool{}, badRequest(path+".parameters", "must be a schema object")
		}
		schema, err := openAPISchema(d.Parameters)
		if err != nil {
			return llm.Tool{}, badRequest(path+".parameters", err.Error())
		}
		tool.Parameters = schema
	}
	return tool, nil
}

// decodeToolConfig maps functionCallingConfig to a canonical tool choice.
func decodeToolConfig(tc *wireToolConfig) *llm.ToolChoice {
	fc := or(tc.FunctionCallingConfig, tc.FunctionCallingConfigS)
	if fc == nil {
		return nil
	}
	allowed := orSlice(fc.AllowedFunctionNames, fc.AllowedFunctionNamesS)
	switch strings.ToUpper(fc.Mode) {
	case "NONE":
		return &llm.ToolChoice{Mode: llm.ToolChoiceNone}
	case "ANY", "VALIDATED":
		if len(allowed) == 1 {
			return &llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: allowed[0]}
		}
		return &llm.ToolChoice{Mode: llm.ToolChoiceRequired}
	case "AUTO":
		return &llm.ToolChoice{Mode: llm.ToolChoiceAuto}
	}
	return nil
}

// decodeGenConfig maps generationConfig onto req.
func decodeGenConfig(gc *wireGenConfig, req *llm.Request) error {
	req.Temperature = gc.Temperature
	req.TopP = or(gc.TopP, gc.TopPS)
	if k := or(gc.TopK, gc.TopKS); k != nil {
		if *k < 0 || *k > math.MaxInt32 {
			return badRequest("generationConfig.topK", "out of range")
		}
		topK := int(*k)
		req.TopK = &topK
	}
	if m := or(gc.MaxOutputTokens, gc.MaxOutputTokensS); m != nil {
		if *m < 0 {
			return badRequest("generationConfig.maxOutputTokens", "must not be negative")
		}
		req.MaxTokens = *m
	}
	req.Stop = orSlice(gc.StopSequences, gc.StopSequencesS)
	req.Seed = gc.Seed
	if strings.EqualFold(or(gc.ResponseMimeType, gc.ResponseMimeTypeS), "application/json") {
		rf := &llm.ResponseFormat{Type: "json_object"}
		if js := orRaw(gc.ResponseJSONSchema, gc.ResponseJSONSchemaS); !wirejson.IsNull(js) {
			rf.Type, rf.Schema = "json_schema", compact(js)
		} else if s := orRaw(gc.ResponseSchema, gc.ResponseSchemaS); !wirejson.IsNull(s) {
			schema, err := openAPISchema(s)
			if err != nil {
				return badRequest("generationConfig.responseSchema", err.Error())
			}
			rf.Type, rf.Schema = "json_schema", schema
		}
		req.ResponseFormat = rf
	}
	if tc := or(gc.ThinkingConfig, gc.ThinkingConfigS); tc != nil {
		req.Thinking = decodeThinking(tc)
	}
	return nil
}

// decodeThinking maps thinkingConfig: thoughts are on when they are shown,
// budgeted or levelled, and off with a zero budget.
func decodeThinking(tc *wireThinking) *llm.Thinking {
	th := &llm.Thinking{}
	budget := or(tc.ThinkingBudget, tc.ThinkingBudgetS)
	if include := or(tc.IncludeThoughts, tc.IncludeThoughtsS); include != nil && *include {
		th.Enabled = true
	}
	if level := or(tc.ThinkingLevel, tc.ThinkingLevelS); level != "" {
		th.Enabled, th.Effort = true, strings.ToLower(level)
	}
	if budget != nil {
		switch {
		case *budget > 0:
			th.Enabled, th.BudgetTokens = true, *budget
		case *budget == 0:
			th.Enabled = false
		}
	}
	return th
}

// compact copies valid JSON without insignificant space.
func compact(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return buf.Bytes()
}

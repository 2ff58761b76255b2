package gemini

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/dataurl"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// skipSignature is the thoughtSignature Google documents for function calls
// the model did not produce itself; Gemini 3 rejects a model turn whose first
// call has no signature.
const skipSignature = "skip_thought_signature_validator"

// maxBudget is the largest thinking budget every Gemini 2.5 model accepts.
const maxBudget = 24576

// EncodeRequest renders r as a generateContent body (the model goes in the
// URL). Tool results are matched to their call's function name by id.
func (*Codec) EncodeRequest(r *llm.Request) ([]byte, error) {
	out := outRequest{Contents: []outContent{}}
	system := append([]llm.Part(nil), r.System...)
	names := map[string]string{}
	for _, m := range r.Messages {
		for _, p := range m.Content {
			if p.Type == llm.PartToolCall {
				names[p.ID] = p.Name
			}
		}
	}
	for mi, m := range r.Messages {
		if m.Role == llm.RoleSystem || m.Role == llm.RoleDeveloper {
			system = append(system, m.Content...)
			continue
		}
		c, err := encodeMessage(m, mi, names)
		if err != nil {
			return nil, err
		}
		if len(c.Parts) == 0 {
			continue
		}
		if n := len(out.Contents); n > 0 && out.Contents[n-1].Role == c.Role {
			out.Contents[n-1].Parts = append(out.Contents[n-1].Parts, c.Parts...)
			continue
		}
		out.Contents = append(out.Contents, c)
	}
	for _, p := range system {
		if p.Type == llm.PartText && p.Text != "" {
			if out.SystemInstruction == nil {
				out.SystemInstruction = &outContent{}
			}
			out.SystemInstruction.Parts = append(out.SystemInstruction.Parts, outPart{Text: strp(p.Text)})
		}
	}
	if len(r.Tools) > 0 {
		decls := make([]outDecl, 0, len(r.Tools))
		for _, t := range r.Tools {
			decls = append(decls, outDecl{Name: t.Name, Description: t.Description, ParametersJSONSchema: t.Parameters})
		}
		out.Tools = []outTool{{FunctionDeclarations: decls}}
	}
	out.ToolConfig = encodeToolChoice(r.ToolChoice)
	out.GenerationConfig = encodeGenConfig(r)
	return wirejson.Marshal(out)
}

// encodeMessage renders one canonical message as a content.
func encodeMessage(m llm.Message, mi int, names map[string]string) (outContent, error) {
	if m.Role == llm.RoleAssistant {
		return encodeModelTurn(m, mi)
	}
	c := outContent{Role: "user"}
	for pi, p := range m.Content {
		switch p.Type {
		case llm.PartText:
			if p.Text != "" {
				c.Parts = append(c.Parts, outPart{Text: strp(p.Text)})
			}
		case llm.PartImage, llm.PartDocument:
			if part, ok := mediaPart(p); ok {
				c.Parts = append(c.Parts, part)
			}
		case llm.PartToolResult:
			name := or(names[p.ID], or(p.Name, p.ID))
			if name == "" {
				return c, fmt.Errorf("gemini: messages[%d].content[%d]: tool result without a call id or name: %w", mi, pi, llm.ErrMalformed)
			}
			c.Parts = append(c.Parts, outPart{FunctionResponse: &outFuncResponse{Name: name, Response: resultObject(p)}})
			for _, inner := range p.Result {
				if inner.Type == llm.PartImage || inner.Type == llm.PartDocument {
					if part, ok := mediaPart(inner); ok {
						c.Parts = append(c.Parts, part)
					}
				}
			}
		}
	}
	return c, nil
}

// encodeModelTurn renders an assistant message. Only Google signatures are
// replayed; the first call of a turn without one gets skipSignature.
func encodeModelTurn(m llm.Message, mi int) (outContent, error) {
	c := outContent{Role: "model"}
	firstCall := true
	for pi, p := range m.Content {
		sig := ""
		if p.Family == family {
			sig = p.Signature
		}
		switch p.Type {
		case llm.PartText:
			if p.Text != "" || sig != "" {
				c.Parts = append(c.Parts, outPart{Text: strp(p.Text), ThoughtSignature: sig})
			}
		case llm.PartThinking:
			if sig != "" {
				c.Parts = append(c.Parts, outPart{Text: strp(p.Text), Thought: true, ThoughtSignature: sig})
			}
		case llm.PartToolCall:
			args, err := argsObject(p.Arguments)
			if err != nil {
				return c, fmt.Errorf("gemini: messages[%d].content[%d].arguments: %w", mi, pi, err)
			}
			if sig == "" && firstCall {
				sig = skipSignature
			}
			firstCall = false
			c.Parts = append(c.Parts, outPart{FunctionCall: &outCall{Name: p.Name, Args: args}, ThoughtSignature: sig})
		case llm.PartImage, llm.PartDocument:
			if part, ok := mediaPart(p); ok {
				c.Parts = append(c.Parts, part)
			}
		}
	}
	return c, nil
}

// argsObject checks that tool-call arguments are a JSON object ("" is {}).
func argsObject(args string) (json.RawMessage, error) {
	if strings.TrimSpace(args) == "" {
		return json.RawMessage("{}"), nil
	}
	raw := json.RawMessage(args)
	if wirejson.FirstByte(raw) != '{' || !json.Valid(raw) {
		return nil, fmt.Errorf("%w: tool-call arguments are not a JSON object", llm.ErrMalformed)
	}
	return raw, nil
}

// resultObject renders a tool result as a functionResponse.response object:
// {"error": text} for errors, the text itself when it is a JSON object,
// else {"output": text}.
func resultObject(p llm.Part) json.RawMessage {
	var texts []string
	for _, r := range p.Result {
		if r.Type == llm.PartText {
			texts = append(texts, r.Text)
		}
	}
	text := strings.Join(texts, "\n")
	key := "output"
	if p.IsError {
		key = "error"
	} else if t := json.RawMessage(strings.TrimSpace(text)); wirejson.FirstByte(t) == '{' && json.Valid(t) {
		return t
	}
	out, _ := wirejson.Marshal(map[string]string{key: text})
	return out
}

// mediaPart renders an image or document as inlineData or fileData. Parts
// known only by a provider file id cannot be sent to Gemini and are dropped.
func mediaPart(p llm.Part) (outPart, bool) {
	switch {
	case p.Data != "":
		return outPart{InlineData: &outBlob{MimeType: or(p.MediaType, defaultMediaType(p)), Data: p.Data}}, true
	case strings.HasPrefix(p.URL, "data:"):
		mt, data, ok := dataurl.Parse(p.URL)
		if !ok {
			return outPart{}, false
		}
		return outPart{InlineData: &outBlob{MimeType: mt, Data: data}}, true
	case p.URL != "":
		return outPart{FileData: &outFile{MimeType: or(p.MediaType, guessMediaType(p)), FileURI: p.URL}}, true
	}
	return outPart{}, false
}

// guessMediaType names the media type of a URL by its extension.
func guessMediaType(p llm.Part) string {
	u := strings.ToLower(p.URL)
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	for ext, mt := range map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
		".gif": "image/gif", ".webp": "image/webp", ".pdf": "application/pdf", ".txt": "text/plain"} {
		if strings.HasSuffix(u, ext) {
			return mt
		}
	}
	return defaultMediaType(p)
}

func defaultMediaType(p llm.Part) string {
	if p.Type == llm.PartImage {
		return "image/jpeg"
	}
	return "application/pdf"
}

// encodeToolChoice renders toolConfig.
func encodeToolChoice(tc *llm.ToolChoice) *outToolConfig {
	if tc == nil {
		return nil
	}
	cfg := outCallingConfig{Mode: "AUTO"}
	switch tc.Mode {
	case llm.ToolChoiceNone:
		cfg.Mode = "NONE"
	case llm.ToolChoiceRequired:
		cfg.Mode = "ANY"
	case llm.ToolChoiceTool:
		cfg.Mode, cfg.AllowedFunctionNames = "ANY", []string{tc.Name}
	}
	return &outToolConfig{FunctionCallingConfig: cfg}
}

// encodeGenConfig renders generationConfig, nil when nothing is set.
func encodeGenConfig(r *llm.Request) *outGenConfig {
	g := outGenConfig{Temperature: r.Temperature, TopP: r.TopP, TopK: r.TopK, MaxOutputTokens: r.MaxTokens, StopSequences: r.Stop, Seed: r.Seed}
	if rf := r.ResponseFormat; rf != nil {
		g.ResponseMimeType = "application/json"
		if rf.Type == "json_schema" {
			g.ResponseJSONSchema = rf.Schema
		}
	}
	if th := r.Thinking; th != nil && th.Enabled {
		g.ThinkingConfig = encodeThinking(th, r.Model)
	}
	if g.Temperature == nil && g.TopP == nil && g.TopK == nil && g.MaxOutputTokens == 0 && g.StopSequences == nil &&
		g.Seed == nil && g.ResponseMimeType == "" && g.ThinkingConfig == nil {
		return nil
	}
	return &g
}

// encodeThinking asks for visible thoughts: by level on Gemini 3 models, by
// budget (the caller's, one sized to the effort, or dynamic) on older ones.
func encodeThinking(th *llm.Thinking, model string) *outThinking {
	out := &outThinking{IncludeThoughts: true}
	if strings.HasPrefix(strings.TrimPrefix(model, "models/"), "gemini-3") && th.BudgetTokens == 0 {
		switch th.Effort {
		case "minimal", "low":
			out.ThinkingLevel = "low"
		case "":
		default:
			out.ThinkingLevel = "high"
		}
		return out
	}
	budget := -1
	switch {
	case th.BudgetTokens > 0:
		budget = min(th.BudgetTokens, maxBudget)
	case th.Effort == "minimal":
		budget = 512
	case th.Effort == "low":
		budget = 1024
	case th.Effort == "medium":
		budget = 8192
	case th.Effort != "":
		budget = maxBudget
	}
	out.ThinkingBudget = &budget
	return out
}

func strp(s string) *string { return &s }

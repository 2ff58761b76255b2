package responses

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/dataurl"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// emptySchema is sent for a function tool without parameters.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// EncodeRequest renders r as a Responses request body for an upstream. Heddle
// is stateless, so it always sends store:false, and asks for encrypted
// reasoning when thinking is on so later turns can replay it.
func (*Codec) EncodeRequest(r *llm.Request) ([]byte, error) {
	out := outRequest{
		Model:             r.Model,
		Instructions:      joinText(r.System, "\n\n"),
		ParallelToolCalls: r.ParallelToolCalls,
		MaxOutputTokens:   r.MaxTokens,
		Temperature:       r.Temperature,
		TopP:              r.TopP,
		Stream:            r.Stream,
		User:              r.User,
		Metadata:          r.Metadata,
	}
	input, err := encodeMessages(r.Messages)
	if err != nil {
		return nil, err
	}
	out.Input = input
	for _, t := range r.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = emptySchema
		}
		out.Tools = append(out.Tools, outTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params, Strict: t.Strict})
	}
	out.ToolChoice = encodeToolChoice(r.ToolChoice)
	if th := r.Thinking; th != nil {
		switch {
		case th.Enabled:
			out.Reasoning = &outReasoning{Effort: effortOf(th), Summary: "auto"}
			out.Include = []string{"reasoning.encrypted_content"}
		case th.Effort != "":
			out.Reasoning = &outReasoning{Effort: th.Effort}
		}
	}
	if rf := r.ResponseFormat; rf != nil {
		f := outFormat{Type: rf.Type}
		if rf.Type == "json_schema" {
			f.Name, f.Schema = rf.Name, rf.Schema
			if f.Name == "" {
				f.Name = "response"
			}
			strict := rf.Strict
			f.Strict = &strict
		}
		out.Text = &outTextConfig{Format: f}
	}
	return wirejson.Marshal(out)
}

// effortOf picks a reasoning effort: the caller's, else one sized to the
// thinking budget, else medium.
func effortOf(th *llm.Thinking) string {
	switch {
	case th.Effort != "":
		return th.Effort
	case th.BudgetTokens <= 0:
		return "medium"
	case th.BudgetTokens < 4096:
		return "low"
	case th.BudgetTokens < 16384:
		return "medium"
	}
	return "high"
}

// encodeToolChoice renders tool_choice; nil leaves it out.
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
		return outToolChoice{Type: "function", Name: tc.Name}
	}
	return "auto"
}

// joinText concatenates the text parts of parts.
func joinText(parts []llm.Part, sep string) string {
	var texts []string
	for _, p := range parts {
		if p.Type == llm.PartText && p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, sep)
}

// encodeMessages renders the conversation as input items.
func encodeMessages(msgs []llm.Message) ([]any, error) {
	items := []any{}
	for mi, m := range msgs {
		var err error
		switch m.Role {
		case llm.RoleAssistant:
			items = appendAssistant(items, m, mi)
		case llm.RoleSystem, llm.RoleDeveloper:
			if content := inputContent(m.Content); len(content) > 0 {
				items = append(items, outMessage{Type: "message", Role: string(m.Role), Content: content})
			}
		default:
			items, err = appendUser(items, m, mi)
		}
		if err != nil {
			return nil, err
		}
	}
	return items, nil
}

// appendUser renders a user or tool turn: tool results become
// function_call_output items, everything else one user message.
func appendUser(items []any, m llm.Message, mi int) ([]any, error) {
	var pending []llm.Part
	flush := func() {
		if content := inputContent(pending); len(content) > 0 {
			items = append(items, outMessage{Type: "message", Role: "user", Content: content})
		}
		pending = nil
	}
	for pi, p := range m.Content {
		if p.Type != llm.PartToolResult {
			pending = append(pending, p)
			continue
		}
		if p.ID == "" {
			return nil, fmt.Errorf("responses: messages[%d].content[%d]: tool result without a call id: %w", mi, pi, llm.ErrMalformed)
		}
		flush()
		items = append(items, outCallOutput{Type: "function_call_output", CallID: p.ID, Output: toolOutput(p.Result)})
	}
	flush()
	return items, nil
}

// toolOutput renders a tool result: a string when it is all text, else parts.
func toolOutput(result []llm.Part) any {
	allText := true
	for _, p := range result {
		if p.Type != llm.PartText {
			allText = false
		}
	}
	if allText {
		return joinText(result, "\n")
	}
	return inputContent(result)
}

// inputContent renders user-side content parts; kinds with no input form are dropped.
func inputContent(parts []llm.Part) []any {
	var out []any
	for _, p := range parts {
		switch p.Type {
		case llm.PartText:
			out = append(out, outInputText{Type: "input_text", Text: p.Text})
		case llm.PartImage:
			img := outImage{Type: "input_image", Detail: "auto"}
			switch {
			case p.Data != "":
				img.ImageURL = dataurl.Format(p.MediaType, p.Data)
			case p.URL != "":
				img.ImageURL = p.URL
			case p.ID != "":
				img.FileID = p.ID
			default:
				continue
			}
			out = append(out, img)
		case llm.PartDocument:
			f := outFile{Type: "input_file", Filename: p.Name}
			switch {
			case p.Data != "":
				f.FileData = dataurl.Format(p.MediaType, p.Data)
				if f.Filename == "" {
					f.Filename = "document" + extension(p.MediaType)
				}
			case p.URL != "":
				f.FileURL = p.URL
			case p.ID != "":
				f.FileID = p.ID
			default:
				continue
			}
			out = append(out, f)
		}
	}
	return out
}

// extension names a file suffix for a document's media type.
func extension(mediaType string) string {
	switch mediaType {
	case "application/pdf":
		return ".pdf"
	case "text/plain":
		return ".txt"
	}
	return ""
}

// appendAssistant renders an assistant turn in order: runs of text as one
// message item, tool calls as function_call items, and OpenAI reasoning with
// encrypted content as reasoning items. Reasoning from other families, or
// without encrypted content, cannot be replayed to OpenAI and is dropped.
func appendAssistant(items []any, m llm.Message, mi int) []any {
	var text []any
	var summary *llm.Part
	flushText := func() {
		if len(text) > 0 {
			items = append(items, outMessage{Type: "message", Role: "assistant", Content: text})
			text = nil
		}
	}
	for pi, p := range m.Content {
		if p.Type != llm.PartRedactedThinking {
			summary = nil
		}
		switch p.Type {
		case llm.PartText:
			if p.Text != "" {
				text = append(text, outInputText{Type: "output_text", Text: p.Text})
			}
		case llm.PartToolCall:
			flushText()
			id := p.ID
			if id == "" {
				id = fmt.Sprintf("call_%d_%d", mi, pi)
			}
			args := p.Arguments
			if args == "" {
				args = "{}"
			}
			items = append(items, outCall{Type: "function_call", CallID: id, Name: p.Name, Arguments: args})
		case llm.PartThinking:
			if p.Family == family {
				summary = &m.Content[pi]
			}
		case llm.PartRedactedThinking:
			if p.Family != family || p.Data == "" {
				continue
			}
			flushText()
			it := outReasoningItem{Type: "reasoning", Summary: []outSummary{}, EncryptedContent: p.Data}
			if summary != nil && summary.Text != "" {
				it.Summary = []outSummary{{Type: "summary_text", Text: summary.Text}}
			}
			summary = nil
			items = append(items, it)
		}
	}
	flushText()
	return items
}

package responses

import (
	"encoding/json"
	"strings"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// history accumulates canonical messages from Responses items. Consecutive
// assistant items (messages, reasoning, function calls) form one assistant
// turn and consecutive function_call_output items one tool turn; every user
// message item stays its own turn.
type history struct {
	msgs []llm.Message
}

// add appends parts under role, merging into the previous turn when both are
// assistant or both are tool turns.
func (h *history) add(role llm.Role, parts ...llm.Part) {
	if len(parts) == 0 {
		return
	}
	if n := len(h.msgs); n > 0 && h.msgs[n-1].Role == role && (role == llm.RoleAssistant || role == llm.RoleTool) {
		h.msgs[n-1].Content = append(h.msgs[n-1].Content, parts...)
		return
	}
	h.msgs = append(h.msgs, llm.Message{Role: role, Content: parts})
}

// decodeInput reads input: a string (one user message) or a list of items.
func decodeInput(raw json.RawMessage, req *llm.Request) error {
	switch wirejson.FirstByte(raw) {
	case '"':
		var text string
		if err := unmarshal(raw, &text, "input"); err != nil {
			return err
		}
		req.Messages = []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: text}}}}
		return nil
	case '[':
	case 0:
		return badRequest("input", "required")
	default:
		if wirejson.IsNull(raw) {
			return badRequest("input", "required")
		}
		return badRequest("input", "expected a string or an array of items")
	}
	var raws []json.RawMessage
	if err := unmarshal(raw, &raws, "input"); err != nil {
		return err
	}
	var h history
	for i, r := range raws {
		path := wirejson.Index("input", i)
		if wirejson.FirstByte(r) != '{' {
			return badRequest(path, "expected an object")
		}
		var it wireItem
		if err := unmarshal(r, &it, path); err != nil {
			return err
		}
		if err := decodeItem(&it, path, &h, req); err != nil {
			return err
		}
	}
	req.Messages = h.msgs
	return nil
}

// decodeItem adds one input item to the history (or to System).
func decodeItem(it *wireItem, path string, h *history, req *llm.Request) error {
	switch it.Type {
	case "message", "":
		if it.Role == "" {
			return badRequest(path+".role", "required")
		}
		return decodeMessage(it, path, h, req)
	case "function_call":
		part, err := decodeCall(it, path)
		if err != nil {
			return err
		}
		h.add(llm.RoleAssistant, part)
	case "function_call_output":
		if it.CallID == "" {
			return badRequest(path+".call_id", "required")
		}
		result, err := decodeOutput(it.Output, path+".output")
		if err != nil {
			return err
		}
		h.add(llm.RoleTool, llm.Part{Type: llm.PartToolResult, ID: it.CallID, Result: result})
	case "reasoning":
		h.add(llm.RoleAssistant, reasoningParts(it)...)
	}
	// item_reference and hosted-tool items have no canonical form.
	return nil
}

// decodeMessage maps a message item by role.
func decodeMessage(it *wireItem, path string, h *history, req *llm.Request) error {
	parts, err := decodeContent(it.Content, path+".content")
	if err != nil {
		return err
	}
	switch it.Role {
	case "system", "developer":
		for _, p := range parts {
			if p.Type == llm.PartText {
				req.System = append(req.System, p)
			}
		}
	case "user":
		if len(parts) == 0 {
			return nil
		}
		h.msgs = append(h.msgs, llm.Message{Role: llm.RoleUser, Content: parts})
	case "assistant":
		h.add(llm.RoleAssistant, parts...)
	default:
		return badRequestf(path+".role", "unknown role %q", it.Role)
	}
	return nil
}

// decodeCall maps a function_call item to a tool_call part.
func decodeCall(it *wireItem, path string) (llm.Part, error) {
	if it.CallID == "" {
		return llm.Part{}, badRequest(path+".call_id", "required")
	}
	if it.Name == "" {
		return llm.Part{}, badRequest(path+".name", "required")
	}
	args := "{}"
	if !wirejson.IsNull(it.Arguments) {
		if err := unmarshal(it.Arguments, &args, path+".arguments"); err != nil {
			return llm.Part{}, err
		}
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
	}
	return llm.Part{Type: llm.PartToolCall, ID: it.CallID, Name: it.Name, Arguments: args}, nil
}

// reasoningParts maps a reasoning item: its summary (or, lacking one, its
// reasoning text) becomes a thinking part; encrypted_content a redacted one.
func reasoningParts(it *wireItem) []llm.Part {
	var texts []string
	for _, s := range it.Summary {
		texts = append(texts, s.Text)
	}
	if len(texts) == 0 && wirejson.FirstByte(it.Content) == '[' {
		var content []wireSummary
		if json.Unmarshal(it.Content, &content) == nil {
			for _, c := range content {
				texts = append(texts, c.Text)
			}
		}
	}
	var parts []llm.Part
	if text := strings.Join(texts, "\n\n"); text != "" {
		parts = append(parts, llm.Part{Type: llm.PartThinking, Text: text, ID: it.ID, Family: family})
	}
	if it.EncryptedContent != nil && *it.EncryptedContent != "" {
		parts = append(parts, llm.Part{Type: llm.PartRedactedThinking, Data: *it.EncryptedContent, ID: it.ID, Family: family})
	}
	return parts
}

// decodeOutput reads a function_call_output's output: a string or parts.
func decodeOutput(raw json.RawMessage, path string) ([]llm.Part, error) {
	if wirejson.IsNull(raw) {
		return nil, nil
	}
	return decodeContent(raw, path)
}

// decodeContent reads message content: a string or an array of parts.
func decodeContent(raw json.RawMessage, path string) ([]llm.Part, error) {
	switch wirejson.FirstByte(raw) {
	case 0:
		return nil, nil
	case '"':
		var text string
		if err := unmarshal(raw, &text, path); err != nil {
			return nil, err
		}
		return []llm.Part{{Type: llm.PartText, Text: text}}, nil
	case '[':
	default:
		if wirejson.IsNull(raw) {
			return nil, nil
		}
		return nil, badRequest(path, "expected a string or an array of parts")
	}
	var raws []json.RawMessage
	if err := unmarshal(raw, &raws, path); err != nil {
		return nil, err
	}
	parts := make([]llm.Part, 0, len(raws))
	for i, r := range raws {
		p, ok, err := decodePart(r, wirejson.Index(path, i))
		if err != nil {
			return nil, err
		}
		if ok {
			parts = append(parts, p)
		}
	}
	return parts, nil
}

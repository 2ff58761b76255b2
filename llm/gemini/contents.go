package gemini

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// decodeContents maps contents to canonical messages: model turns to
// assistant messages (consecutive ones merged), user turns to user messages,
// with each run of functionResponse parts split out as a tool message.
func decodeContents(raws []json.RawMessage) ([]llm.Message, error) {
	ids := newCallIDs("call_")
	var msgs []llm.Message
	for i, raw := range raws {
		path := wirejson.Index("contents", i)
		var c wireContent
		if err := unmarshal(raw, &c, path); err != nil {
			return nil, err
		}
		role := llm.RoleUser
		switch c.Role {
		case "model", "assistant":
			role = llm.RoleAssistant
		case "user", "", "function", "tool":
		default:
			return nil, badRequestf(path+".role", "unknown role %q, want user or model", c.Role)
		}
		var parts []llm.Part
		for j, pr := range c.Parts {
			p, ok, err := decodePart(pr, wirejson.Index(path+".parts", j), ids)
			if err != nil {
				return nil, err
			}
			if ok {
				parts = append(parts, p)
			}
		}
		if len(parts) == 0 {
			continue
		}
		if role == llm.RoleAssistant {
			if n := len(msgs); n > 0 && msgs[n-1].Role == llm.RoleAssistant {
				msgs[n-1].Content = append(msgs[n-1].Content, parts...)
				continue
			}
			msgs = append(msgs, llm.Message{Role: role, Content: parts})
			continue
		}
		msgs = appendUserSide(msgs, parts)
	}
	return msgs, nil
}

// appendUserSide splits user-side parts into runs: tool results form tool
// messages, everything else user messages, order kept.
func appendUserSide(msgs []llm.Message, parts []llm.Part) []llm.Message {
	for start := 0; start < len(parts); {
		isResult := parts[start].Type == llm.PartToolResult
		end := start + 1
		for end < len(parts) && (parts[end].Type == llm.PartToolResult) == isResult {
			end++
		}
		role := llm.RoleUser
		if isResult {
			role = llm.RoleTool
		}
		msgs = append(msgs, llm.Message{Role: role, Content: parts[start:end:end]})
		start = end
	}
	return msgs
}

// decodePart maps one part. ok is false for parts with no canonical form
// (executable code, empty text, ...), which are skipped.
func decodePart(raw json.RawMessage, path string, ids *callIDs) (llm.Part, bool, error) {
	if wirejson.FirstByte(raw) != '{' {
		return llm.Part{}, false, badRequest(path, "expected an object")
	}
	var w wirePart
	if err := unmarshal(raw, &w, path); err != nil {
		return llm.Part{}, false, err
	}
	sig := or(w.ThoughtSignature, w.ThoughtSignatureS)
	sigFamily := ""
	if sig != "" {
		sigFamily = family
	}
	switch {
	case or(w.FunctionCall, w.FunctionCallS) != nil:
		call := or(w.FunctionCall, w.FunctionCallS)
		if call.Name == "" {
			return llm.Part{}, false, badRequest(path+".functionCall.name", "required")
		}
		args, err := objectText(call.Args, path+".functionCall.args")
		if err != nil {
			return llm.Part{}, false, err
		}
		return llm.Part{Type: llm.PartToolCall, ID: ids.call(call.Name, call.ID), Name: call.Name, Arguments: args, Signature: sig, Family: sigFamily}, true, nil
	case or(w.FunctionResponse, w.FunctionResponseS) != nil:
		resp := or(w.FunctionResponse, w.FunctionResponseS)
		if resp.Name == "" {
			return llm.Part{}, false, badRequest(path+".functionResponse.name", "required")
		}
		result, isErr, err := responseResult(resp.Response, path+".functionResponse.response")
		if err != nil {
			return llm.Part{}, false, err
		}
		return llm.Part{Type: llm.PartToolResult, ID: ids.response(resp.Name, resp.ID), Name: resp.Name, Result: result, IsError: isErr}, true, nil
	case or(w.InlineData, w.InlineDataS) != nil:
		blob := or(w.InlineData, w.InlineDataS)
		mt := or(blob.MimeType, blob.MimeTypeS)
		if blob.Data == "" || mt == "" {
			return llm.Part{}, false, badRequest(path+".inlineData", "mimeType and data are required")
		}
		return llm.Part{Type: mediaKind(mt), MediaType: mt, Data: blob.Data}, true, nil
	case or(w.FileData, w.FileDataS) != nil:
		f := or(w.FileData, w.FileDataS)
		uri := or(f.FileURI, f.FileURIS)
		if uri == "" {
			return llm.Part{}, false, badRequest(path+".fileData.fileUri", "required")
		}
		mt := or(f.MimeType, f.MimeTypeS)
		return llm.Part{Type: mediaKind(mt), MediaType: mt, URL: uri}, true, nil
	case w.Text != nil && w.Thought:
		return llm.Part{Type: llm.PartThinking, Text: *w.Text, Signature: sig, Family: family}, true, nil
	case w.Text != nil:
		if *w.Text == "" && sig == "" {
			return llm.Part{}, false, nil
		}
		return llm.Part{Type: llm.PartText, Text: *w.Text, Signature: sig, Family: sigFamily}, true, nil
	}
	return llm.Part{}, false, nil
}

// mediaKind classifies inline or file data by its media type.
func mediaKind(mediaType string) llm.PartType {
	if strings.HasPrefix(mediaType, "image/") {
		return llm.PartImage
	}
	return llm.PartDocument
}

// objectText renders function-call args (a JSON object, or absent) as
// compact JSON text.
func objectText(raw json.RawMessage, path string) (string, error) {
	if wirejson.IsNull(raw) {
		return "{}", nil
	}
	if wirejson.FirstByte(raw) != '{' {
		return "", badRequest(path, "expected an object")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return "", badRequest(path, err.Error())
	}
	return buf.String(), nil
}

// responseResult maps functionResponse.response to result parts: a lone
// "output"/"result"/"content" string is the result text, a lone "error"
// string an error result, and any other object its JSON text.
func responseResult(raw json.RawMessage, path string) ([]llm.Part, bool, error) {
	if wirejson.IsNull(raw) {
		return nil, false, nil
	}
	if wirejson.FirstByte(raw) != '{' {
		return nil, false, badRequest(path, "expected an object")
	}
	var fields map[string]json.RawMessage
	if err := unmarshal(raw, &fields, path); err != nil {
		return nil, false, err
	}
	if len(fields) == 1 {
		for k, v := range fields {
			var s string
			if wirejson.FirstByte(v) == '"' && json.Unmarshal(v, &s) == nil {
				switch k {
				case "output", "result", "content":
					return []llm.Part{{Type: llm.PartText, Text: s}}, false, nil
				case "error":
					return []llm.Part{{Type: llm.PartText, Text: s}}, true, nil
				}
			}
		}
	}
	text, err := objectText(raw, path)
	if err != nil {
		return nil, false, err
	}
	return []llm.Part{{Type: llm.PartText, Text: text}}, false, nil
}

package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/heddle-gw/heddle/llm"
)

// objectArgs returns s as a JSON object for a tool_use input: the API takes
// only objects, so empty or non-object arguments become {}.
func objectArgs(s string) json.RawMessage {
	t := strings.TrimSpace(s)
	if len(t) > 0 && t[0] == '{' && json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	return json.RawMessage("{}")
}

// compactJSON returns raw (valid JSON) without insignificant whitespace, so
// tool arguments read the same whichever format they came from.
func compactJSON(raw []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}

func badRequest(field, reason string) *llm.BadRequestError {
	return &llm.BadRequestError{Field: field, Reason: reason}
}

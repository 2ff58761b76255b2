package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// marshal encodes v like json.Marshal but without escaping <, > and &, as
// the API itself writes JSON.
func marshal(v any) ([]byte, error) {
	return wirejson.Marshal(v)
}

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

// isNull reports whether raw is absent or the JSON null literal.
func isNull(raw json.RawMessage) bool {
	return wirejson.IsNull(raw)
}

func badRequest(field, reason string) *llm.BadRequestError {
	return &llm.BadRequestError{Field: field, Reason: reason}
}

// decodeAt unmarshals raw into v and turns a failure into a
// *llm.BadRequestError whose field is path (plus the nested field the JSON
// decoder names).
func decodeAt(raw []byte, v any, path string) error {
	return wirejson.Unmarshal(raw, v, path, syntaxReason)
}

// decodeList decodes a JSON array in one pass; when that fails it decodes
// the elements one by one, so the error names the offending index.
func decodeList[T any](raw json.RawMessage, path string) ([]T, error) {
	return wirejson.UnmarshalList[T](raw, path, syntaxReason)
}

// syntaxReason words a JSON syntax error in this codec's error messages.
func syntaxReason(e *json.SyntaxError) string {
	return "malformed JSON: " + e.Error()
}

package responses

import (
	"encoding/json"
	"fmt"

	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// unmarshal decodes data into v and turns encoding/json errors into a
// *llm.BadRequestError whose Field is path joined with the failing member.
func unmarshal(data []byte, v any, path string) error {
	return wirejson.Unmarshal(data, v, path, atByte)
}

// atByte words a JSON syntax error in this codec's error messages, with the
// byte offset where it was found.
func atByte(e *json.SyntaxError) string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Error())
}

// index renders path[i].
func index(path string, i int) string {
	return wirejson.Index(path, i)
}

// isNull reports whether raw is absent or the JSON null literal.
func isNull(raw json.RawMessage) bool {
	return wirejson.IsNull(raw)
}

// firstByte returns the first non-space byte of raw, or 0.
func firstByte(raw json.RawMessage) byte {
	return wirejson.FirstByte(raw)
}

// marshal renders v as compact JSON without HTML escaping (prompts are full
// of <, > and &; escaping them only inflates the bytes).
func marshal(v any) ([]byte, error) {
	return wirejson.Marshal(v)
}

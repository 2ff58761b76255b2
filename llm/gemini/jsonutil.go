package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// unmarshal decodes data into v and turns encoding/json errors into a
// *llm.BadRequestError whose Field is path joined with the failing member.
func unmarshal(data []byte, v any, path string) error {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		field := joinPath(path, typeErr.Field)
		return badRequestf(field, "expected %s, got %s", typeName(typeErr), typeErr.Value)
	}
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) {
		return badRequestf(path, "invalid JSON at byte %d: %s", syntaxErr.Offset, syntaxErr.Error())
	}
	return badRequest(path, err.Error())
}

// typeName names the Go type json wanted in words a caller understands.
func typeName(e *json.UnmarshalTypeError) string {
	if e.Type == nil {
		return "a different type"
	}
	switch e.Type.Kind().String() {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "int32", "uint", "uint64", "uint32":
		return "an integer"
	case "float64", "float32":
		return "a number"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	}
	return e.Type.String()
}

// joinPath joins JSON path segments with dots, skipping empty ones.
func joinPath(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "." + b
}

// index renders path[i].
func index(path string, i int) string {
	return fmt.Sprintf("%s[%d]", path, i)
}

// isNull reports whether raw is absent or the JSON null literal.
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// firstByte returns the first non-space byte of raw, or 0.
func firstByte(raw json.RawMessage) byte {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return 0
	}
	return t[0]
}

// marshal renders v as compact JSON without HTML escaping (prompts are full
// of <, > and &; escaping them only inflates the bytes).
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

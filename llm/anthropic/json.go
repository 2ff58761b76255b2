package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/heddle-gw/heddle/llm"
)

// marshal encodes v like json.Marshal but without escaping <, > and &, as
// the API itself writes JSON.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// isNull reports whether raw is absent or the JSON null literal.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

func badRequest(field, reason string) *llm.BadRequestError {
	return &llm.BadRequestError{Field: field, Reason: reason}
}

// decodeAt unmarshals raw into v and turns a failure into a
// *llm.BadRequestError whose field is path (plus the nested field the JSON
// decoder names).
func decodeAt(raw []byte, v any, path string) error {
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return badRequest(joinPath(path, te.Field), fmt.Sprintf("expected %s, got %s", kind(te.Type), te.Value))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return badRequest(path, "malformed JSON: "+se.Error())
	}
	return badRequest(path, err.Error())
}

func joinPath(path, field string) string {
	switch {
	case field == "":
		return path
	case path == "":
		return field
	}
	return path + "." + field
}

// kind names a Go type the way a JSON user thinks of it.
func kind(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return kind(t.Elem())
	}
	return strings.ToLower(t.Kind().String())
}

// decodeArray splits a JSON array into its elements, naming path when raw is
// not an array.
func decodeArray(raw json.RawMessage, path string) ([]json.RawMessage, error) {
	var items []json.RawMessage
	if err := decodeAt(raw, &items, path); err != nil {
		return nil, err
	}
	return items, nil
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

// decodeList decodes a JSON array in one pass; when that fails it decodes
// the elements one by one, so the error names the offending index.
func decodeList[T any](raw json.RawMessage, path string) ([]T, error) {
	var list []T
	if err := json.Unmarshal(raw, &list); err == nil {
		return list, nil
	}
	items, err := decodeArray(raw, path)
	if err != nil {
		return nil, err
	}
	list = make([]T, len(items))
	for i, item := range items {
		if err := decodeAt(item, &list[i], fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return nil, err
		}
	}
	return list, nil
}

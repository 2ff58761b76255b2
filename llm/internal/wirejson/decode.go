package wirejson

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/heddle-gw/heddle/llm"
)

// SyntaxReason words the Reason of the *llm.BadRequestError that Unmarshal
// returns for a JSON syntax error. Each codec passes its own, so that its
// error messages read as they always have.
type SyntaxReason func(*json.SyntaxError) string

// AtByte is the SyntaxReason of the Gemini and Responses codecs: the
// decoder's message with the byte offset where it failed.
func AtByte(e *json.SyntaxError) string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Error())
}

// Malformed is the SyntaxReason of the Anthropic and Chat Completions
// codecs: "malformed JSON: " and the decoder's message.
func Malformed(e *json.SyntaxError) string {
	return "malformed JSON: " + e.Error()
}

// Unmarshal decodes data into v. A failure is a *llm.BadRequestError:
//   - a type mismatch names path joined with the member the decoder names
//     ("messages.content") and reads "expected a string, got number";
//   - a syntax error names path, worded by syntax;
//   - any other error (from a custom UnmarshalJSON, say) names path and
//     carries the error's text.
func Unmarshal(data []byte, v any, path string, syntax SyntaxReason) error {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &llm.BadRequestError{
			Field:  joinPath(path, te.Field),
			Reason: fmt.Sprintf("expected %s, got %s", typeName(te.Type), te.Value),
		}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &llm.BadRequestError{Field: path, Reason: syntax(se)}
	}
	return &llm.BadRequestError{Field: path, Reason: err.Error()}
}

// UnmarshalList decodes the JSON array raw into a []T in one pass; when that
// fails it decodes the elements one by one, so that the error (as
// Unmarshal's) names the offending element, path[i]. raw that is not an
// array is an error naming path.
func UnmarshalList[T any](raw json.RawMessage, path string, syntax SyntaxReason) ([]T, error) {
	var list []T
	if err := json.Unmarshal(raw, &list); err == nil {
		return list, nil
	}
	var items []json.RawMessage
	if err := Unmarshal(raw, &items, path, syntax); err != nil {
		return nil, err
	}
	list = make([]T, len(items))
	for i, item := range items {
		if err := Unmarshal(item, &list[i], Index(path, i), syntax); err != nil {
			return nil, err
		}
	}
	return list, nil
}

// typeName names a Go type the way a JSON user thinks of it.
func typeName(t reflect.Type) string {
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
		return typeName(t.Elem())
	}
	return strings.ToLower(t.Kind().String())
}

// Content decodes message content that is either a JSON string, read as one
// text part, or an array of T, each element turned into a part by part
// (called with the element's path, path[i]; ok false leaves the element
// out). Absent or null content is a *llm.BadRequestError "required" at path;
// the other errors are Unmarshal's and part's.
func Content[T any](raw json.RawMessage, path string, syntax SyntaxReason, part func(item *T, path string) (p llm.Part, ok bool, err error)) ([]llm.Part, error) {
	if IsNull(raw) {
		return ReadContent[T](true, nil, nil, path, part)
	}
	if raw[0] == '"' {
		var s string
		if err := Unmarshal(raw, &s, path, syntax); err != nil {
			return nil, err
		}
		return ReadContent[T](false, &s, nil, path, part)
	}
	items, err := UnmarshalList[T](raw, path, syntax)
	if err != nil {
		return nil, err
	}
	return ReadContent(false, nil, items, path, part)
}

// ReadContent is Content for content a codec read itself: null when it was
// absent or null, else text when it was a string, else the array's items.
func ReadContent[T any](null bool, text *string, items []T, path string, part func(item *T, path string) (p llm.Part, ok bool, err error)) ([]llm.Part, error) {
	switch {
	case null:
		return nil, &llm.BadRequestError{Field: path, Reason: "required"}
	case text != nil:
		return []llm.Part{{Type: llm.PartText, Text: *text}}, nil
	}
	parts := make([]llm.Part, 0, len(items))
	for i := range items {
		p, ok, err := part(&items[i], Index(path, i))
		if err != nil {
			return nil, err
		}
		if ok {
			parts = append(parts, p)
		}
	}
	return parts, nil
}

package gemini

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// openAPISchema turns a Gemini `parameters`/`responseSchema` (an OpenAPI 3.0
// subset whose type names may be upper case: "OBJECT", "STRING") into JSON
// Schema other providers accept, by lower-casing every type name. Values
// under enum, default, example and const are data, not schema, and are left
// alone.
func openAPISchema(raw json.RawMessage) (json.RawMessage, error) {
	if !bytes.Contains(raw, []byte(`"type"`)) {
		return raw, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	lowerTypes(v)
	return wirejson.Marshal(v)
}

func lowerTypes(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			switch k {
			case "enum", "default", "example", "const":
				continue
			case "type":
				switch t := e.(type) {
				case string:
					x[k] = strings.ToLower(t)
				case []any:
					for i, s := range t {
						if s, ok := s.(string); ok {
							t[i] = strings.ToLower(s)
						}
					}
				default:
					lowerTypes(e) // a property named "type"
				}
				continue
			}
			lowerTypes(e)
		}
	case []any:
		for _, e := range x {
			lowerTypes(e)
		}
	}
}

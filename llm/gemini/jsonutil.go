package gemini

import "github.com/heddle-gw/heddle/llm/internal/wirejson"

// unmarshal decodes data into v and turns encoding/json errors into a
// *llm.BadRequestError whose Field is path joined with the failing member.
func unmarshal(data []byte, v any, path string) error {
	return wirejson.Unmarshal(data, v, path, wirejson.AtByte)
}

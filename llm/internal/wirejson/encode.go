package wirejson

import (
	"bytes"
	"encoding/json"
)

// Marshal encodes v like json.Marshal but without escaping <, > and &, as
// the providers' APIs write JSON themselves (prompts are full of them, and
// escaping only inflates the bytes).
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

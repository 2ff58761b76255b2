package wirejson

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// IsNull reports whether raw is absent (empty or only white space) or the
// JSON null literal.
func IsNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// FirstByte returns the first non-space byte of raw, or 0 when there is
// none; it tells a JSON value's kind ('"', '{', '[', ...) without decoding.
func FirstByte(raw json.RawMessage) byte {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return 0
	}
	return t[0]
}

// Index renders the JSON path of element i of the array at path: path[i].
func Index(path string, i int) string {
	return fmt.Sprintf("%s[%d]", path, i)
}

// joinPath joins two JSON path segments with a dot, skipping empty ones.
func joinPath(path, field string) string {
	switch {
	case field == "":
		return path
	case path == "":
		return field
	}
	return path + "." + field
}

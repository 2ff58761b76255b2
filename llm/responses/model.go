package responses

import (
	"bytes"
	"encoding/json"
	"errors"
)

// errNotObject is reported when a body is valid JSON but not an object.
var errNotObject = errors.New("body is not a JSON object")

// ModelOf returns the top-level "model" of a Responses request body without
// decoding the rest of it. A body without a model is a *llm.BadRequestError.
func ModelOf(body []byte) (string, error) {
	if !json.Valid(body) {
		return "", badRequest("", "body is not valid JSON")
	}
	model, found := "", false
	var bad error
	err := members(body, func(key string, start, end int) {
		if key != "model" {
			return
		}
		found = true
		if err := json.Unmarshal(body[start:end], &model); err != nil {
			bad = badRequest("model", "expected a string")
		}
	})
	switch {
	case err != nil:
		return "", badRequest("", err.Error())
	case bad != nil:
		return "", bad
	case !found || model == "":
		return "", badRequest("model", "required")
	}
	return model, nil
}

// SetModel returns body with the value of its top-level "model" member
// replaced by model. Every other byte, unknown members included, is kept; a
// body without a model member gets one as its first member.
func (*Codec) SetModel(body []byte, model string) ([]byte, error) {
	return setModel(body, model)
}

func setModel(body []byte, model string) ([]byte, error) {
	if !json.Valid(body) {
		return nil, badRequest("", "body is not valid JSON")
	}
	value, err := marshal(model)
	if err != nil {
		return nil, err
	}
	type span struct{ start, end int }
	var spans []span
	err = members(body, func(key string, start, end int) {
		if key == "model" {
			spans = append(spans, span{start, end})
		}
	})
	if err != nil {
		return nil, badRequest("", err.Error())
	}
	out := make([]byte, 0, len(body)+len(value)+12)
	if len(spans) == 0 {
		open := bytes.IndexByte(body, '{')
		out = append(out, body[:open+1]...)
		out = append(out, `"model":`...)
		out = append(out, value...)
		if !emptyObject(body[open+1:]) {
			out = append(out, ',')
		}
		return append(out, body[open+1:]...), nil
	}
	last := 0
	for _, s := range spans {
		out = append(out, body[last:s.start]...)
		out = append(out, value...)
		last = s.end
	}
	return append(out, body[last:]...), nil
}

// emptyObject reports whether rest (what follows an object's '{') closes the
// object with no member.
func emptyObject(rest []byte) bool {
	t := bytes.TrimLeft(rest, " \t\r\n")
	return len(t) > 0 && t[0] == '}'
}

// members calls visit for each member of the top-level JSON object in body
// (which must already be valid JSON), with the decoded key and the byte span
// of the member's value.
func members(body []byte, visit func(key string, start, end int)) error {
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return errNotObject
	}
	i = skipSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		return nil
	}
	for i < len(body) {
		kEnd := skipString(body, i)
		var key string
		if err := json.Unmarshal(body[i:kEnd], &key); err != nil {
			return err
		}
		i = skipSpace(body, kEnd)
		i = skipSpace(body, i+1) // the ':'
		vEnd := skipValue(body, i)
		visit(key, i, vEnd)
		i = skipSpace(body, vEnd)
		if i >= len(body) || body[i] == '}' {
			return nil
		}
		i = skipSpace(body, i+1) // the ','
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// skipValue returns the index just past the JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && !isDelim(b[j]) {
		j++
	}
	return j
}

// isDelim reports whether c ends a JSON literal or number.
func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

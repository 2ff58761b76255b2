package openaichat

import (
	"encoding/json"
)

// ModelOf returns the top-level "model" string of a request body without
// decoding the rest of it; "" when the body has no model member. It is a
// *llm.BadRequestError when the body is not a JSON object or the model is
// not a string. Duplicate model members yield the last, as the decoder does.
func ModelOf(body []byte) (string, error) {
	spans, err := modelSpans(body)
	if err != nil || len(spans) == 0 {
		return "", err
	}
	last := spans[len(spans)-1]
	var model string
	if err := json.Unmarshal(body[last.start:last.end], &model); err != nil {
		return "", badRequest("model", "expected a string")
	}
	return model, nil
}

// SetModel returns a copy of body whose top-level "model" value is model.
// Every other byte survives, unknown members and key order included. Every
// duplicate model member is replaced, so no upstream can read another one; a
// body without a model member gets one as its first member.
func (*Codec) SetModel(body []byte, model string) ([]byte, error) {
	return setModel(body, model)
}

func setModel(body []byte, model string) ([]byte, error) {
	spans, err := modelSpans(body)
	if err != nil {
		return nil, err
	}
	value, err := marshal(model)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(body)+len(value)+10)
	if len(spans) == 0 {
		open := skipSpace(body, 0)
		out = append(out, body[:open+1]...)
		out = append(out, `"model":`...)
		out = append(out, value...)
		if rest := skipSpace(body, open+1); body[rest] != '}' {
			out = append(out, ',')
		}
		return append(out, body[open+1:]...), nil
	}
	prev := 0
	for _, s := range spans {
		out = append(out, body[prev:s.start]...)
		out = append(out, value...)
		prev = s.end
	}
	return append(out, body[prev:]...), nil
}

type span struct{ start, end int }

// modelSpans validates body as one JSON object and returns the byte spans of
// the values of its top-level "model" members.
func modelSpans(body []byte) ([]span, error) {
	if !json.Valid(body) {
		return nil, badRequest("", "body is not valid JSON")
	}
	i := skipSpace(body, 0)
	if body[i] != '{' {
		return nil, badRequest("", "body is not a JSON object")
	}
	var spans []span
	i = skipSpace(body, i+1)
	for body[i] != '}' {
		keyEnd := skipString(body, i)
		isModel := string(body[i:keyEnd]) == `"model"`
		if !isModel && hasEscape(body[i:keyEnd]) {
			var key string
			isModel = json.Unmarshal(body[i:keyEnd], &key) == nil && key == "model"
		}
		i = skipSpace(body, keyEnd)
		i = skipSpace(body, i+1) // past ':'
		end := skipValue(body, i)
		if isModel {
			spans = append(spans, span{i, end})
		}
		i = skipSpace(body, end)
		if body[i] == ',' {
			i = skipSpace(body, i+1)
		}
	}
	return spans, nil
}

// The skip helpers assume body is valid JSON (checked by modelSpans).

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func hasEscape(s []byte) bool {
	for _, c := range s {
		if c == '\\' {
			return true
		}
	}
	return false
}

// skipString returns the index just past the string that starts at b[i].
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

// skipValue returns the index just past the value that starts at b[i].
func skipValue(b []byte, i int) int {
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
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' &&
		b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}

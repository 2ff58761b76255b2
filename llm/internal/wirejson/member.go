package wirejson

import (
	"encoding/json"

	"github.com/heddle-gw/heddle/llm"
)

// Span is the byte range body[Start:End] of one JSON value inside a body.
type Span struct{ Start, End int }

// MemberSpans validates body as one JSON object and returns the spans of the
// values of its top-level members named key, in body order; a key written
// with escapes ("mo\u0064el") counts, members of nested objects do not. It
// is a *llm.BadRequestError (Field "") when body is not valid JSON or not an
// object.
func MemberSpans(body []byte, key string) ([]Span, error) {
	if !Valid(body) {
		return nil, &llm.BadRequestError{Reason: "body is not valid JSON"}
	}
	return memberSpans(body, key, nil)
}

// marshalValue is Marshal, quoting a plain string (printable ASCII
// without quote or backslash, the usual model name) without the encoder.
func marshalValue(v any) ([]byte, error) {
	s, ok := v.(string)
	if !ok {
		return Marshal(v)
	}
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return Marshal(v)
		}
	}
	out := make([]byte, 0, len(s)+2)
	out = append(out, '"')
	out = append(out, s...)
	return append(out, '"'), nil
}

// Valid reports whether body is one valid JSON value, as json.Valid does,
// in Reader's single pass; only a body Reader gives up on (nesting deeper
// than it follows) or rejects is asked of json.Valid.
func Valid(body []byte) bool {
	r := NewReader(body)
	r.Skip()
	return r.End() || json.Valid(body)
}

// memberSpans is MemberSpans for a body known to be valid JSON; the spans
// are appended to spans (a caller's buffer saves an allocation).
func memberSpans(body []byte, key string, spans []Span) ([]Span, error) {
	i := skipSpace(body, 0)
	if body[i] != '{' {
		return nil, &llm.BadRequestError{Reason: "body is not a JSON object"}
	}
	quoted := `"` + key + `"`
	i = skipSpace(body, i+1)
	for body[i] != '}' {
		keyEnd := skipString(body, i)
		raw := body[i:keyEnd]
		match := string(raw) == quoted
		if !match && needsDecoding(raw) {
			var k string
			match = json.Unmarshal(raw, &k) == nil && k == key
		}
		i = skipSpace(body, keyEnd)
		i = skipSpace(body, i+1) // past ':'
		end := skipValue(body, i)
		if match {
			spans = append(spans, Span{i, end})
		}
		i = skipSpace(body, end)
		if body[i] == ',' {
			i = skipSpace(body, i+1)
		}
	}
	return spans, nil
}

// StringMember returns the string value of body's top-level member key, the
// last one when the key repeats (as encoding/json reads it), and "" when
// there is none or it is null. Besides MemberSpans' errors, a value that is
// not a string is a *llm.BadRequestError with Field key.
func StringMember(body []byte, key string) (string, error) {
	if !Valid(body) {
		return "", &llm.BadRequestError{Reason: "body is not valid JSON"}
	}
	return StringMemberOfValid(body, key)
}

// StringMemberOfValid is StringMember for a body the caller knows to be
// valid JSON (json.Unmarshal just decoded it without error): it skips the
// validation pass over the whole body and otherwise answers the same.
func StringMemberOfValid(body []byte, key string) (string, error) {
	var buf [2]Span
	spans, err := memberSpans(body, key, buf[:0])
	if err != nil || len(spans) == 0 {
		return "", err
	}
	last := spans[len(spans)-1]
	r := NewReader(body[last.Start:last.End])
	if s := r.String(); r.End() {
		return s, nil
	}
	var s string // what Reader gives up on (invalid UTF-8, a lone surrogate) or rejects
	if err := json.Unmarshal(body[last.Start:last.End], &s); err != nil {
		return "", &llm.BadRequestError{Field: key, Reason: "expected a string"}
	}
	return s, nil
}

// SetMember returns a copy of body in which every top-level member key has
// the value v (encoded as Marshal does). Every other byte survives, unknown
// members, white space and key order included; replacing every duplicate
// leaves no reader another value to pick. A body without the member gets it
// as its first member. The errors are MemberSpans' and Marshal's.
func SetMember(body []byte, key string, v any) ([]byte, error) {
	if !Valid(body) {
		return nil, &llm.BadRequestError{Reason: "body is not valid JSON"}
	}
	var buf [2]Span
	spans, err := memberSpans(body, key, buf[:0])
	if err != nil {
		return nil, err
	}
	value, err := marshalValue(v)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(body)+len(key)+len(value)+4)
	if len(spans) == 0 {
		name, err := Marshal(key)
		if err != nil {
			return nil, err
		}
		open := skipSpace(body, 0)
		out = append(out, body[:open+1]...)
		out = append(out, name...)
		out = append(out, ':')
		out = append(out, value...)
		if rest := skipSpace(body, open+1); body[rest] != '}' {
			out = append(out, ',')
		}
		return append(out, body[open+1:]...), nil
	}
	prev := 0
	for _, s := range spans {
		out = append(out, body[prev:s.Start]...)
		out = append(out, value...)
		prev = s.End
	}
	return append(out, body[prev:]...), nil
}

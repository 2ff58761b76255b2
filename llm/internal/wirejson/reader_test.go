package wirejson

import (
	"bytes"
	"encoding/json"
	"testing"
)

// checkReader fails t when Reader's validation (Skip then End) disagrees
// with json.Valid, or when String accepts a body json.Unmarshal reads as
// another string or rejects.
func checkReader(t *testing.T, body []byte) {
	t.Helper()
	r := NewReader(body)
	r.Skip()
	ok, valid := r.End(), json.Valid(body)
	deep := bytes.Count(body, []byte("["))+bytes.Count(body, []byte("{")) > maxReaderDepth
	if ok != valid && !(valid && deep) { // Reader gives up on deep nesting
		t.Fatalf("Skip+End = %v, json.Valid = %v for %q", ok, valid, body)
	}
	r = NewReader(body)
	s := r.String()
	if !r.End() {
		return
	}
	var want *string
	if err := json.Unmarshal(body, &want); err != nil {
		t.Fatalf("String read %q from a body json.Unmarshal rejects (%v): %q", s, err, body)
	}
	if want == nil {
		want = new(string) // null reads as ""
	}
	if s != *want {
		t.Fatalf("String = %q, json.Unmarshal = %q for %q", s, *want, body)
	}
}

func TestReader(t *testing.T) {
	for _, body := range []string{
		`{"a":[1,-0,0.5,-1e+9,2E-3,true,false,null,"x",{"b":{}}],"c":[]}`, ` "s" `, `null`, `-`, `01`, `1.`, `.5`,
		`1e`, `[1,]`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{1:2}`, `[1 2]`, `"a`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"a\tb\"",
		`nul`, `truex`, `[`, `]`, ``, ` `, `{}{}`, `"caf\u00e9 \ud83d\ude00 \"\\\/\b\f\n\r\t"`, "\"Gr\xc3\xbc\xc3\x9fe\"",
		"\"a\xffb\"", `"\ud83d"`, `"\ude00"`, `"\ud83d\u0041"`, `"\u0000"`,
	} {
		checkReader(t, []byte(body))
	}
}

// FuzzReader compares Reader's validation and string decoding with
// encoding/json's on arbitrary bodies.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,-0,0.5,-1e+9,true,false,null,"x",{"b":{}}]}`, `"caf\u00e9 \ud83d\ude00 \"\\\/\b\f\n\r\t"`,
		"\"Gr\xc3\xbc\xc3\x9fe\"", `"\ud83d"`, `[1,2]`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkReader(t, body)
	})
}

package wirejson

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
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
	r.SkipString()
	var str *string
	if skipped, err := r.End(), json.Unmarshal(body, &str); skipped != (err == nil) {
		t.Fatalf("SkipString+End = %v, json.Unmarshal into *string: %v for %q", skipped, err, body)
	}
	r.Reset(body) // as NewReader, after a read that may have failed
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

// checkScalars fails t when Bool, Float or Raw accept a body that
// json.Unmarshal rejects or reads otherwise.
func checkScalars(t *testing.T, body []byte) {
	t.Helper()
	r := NewReader(body)
	if b := r.Bool(); r.End() {
		var want bool
		if err := json.Unmarshal(body, &want); err != nil || b != want {
			t.Fatalf("Bool = %v, json.Unmarshal = %v, %v for %q", b, want, err, body)
		}
	}
	r = NewReader(body)
	if f := r.Float(); r.End() {
		var want float64
		if err := json.Unmarshal(body, &want); err != nil || math.Float64bits(f) != math.Float64bits(want) {
			t.Fatalf("Float = %v, json.Unmarshal = %v, %v for %q", f, want, err, body)
		}
	}
	r = NewReader(body)
	if raw := r.Raw(); r.End() {
		var want json.RawMessage
		if err := json.Unmarshal(body, &want); err != nil || !bytes.Equal(raw, want) {
			t.Fatalf("Raw = %q, json.Unmarshal = %q, %v for %q", raw, want, err, body)
		}
	}
}

func TestReaderScalars(t *testing.T) {
	for _, tc := range []struct {
		body        string
		bool, float bool // Bool, Float take it
	}{
		{`true`, true, false}, {` false `, true, false}, {`null`, true, true}, {`nul`, false, false}, {`truex`, false, false},
		{`0`, false, true}, {`-0`, false, true}, {` 0.25 `, false, true}, {`-1.5e+3`, false, true}, {`2E-3`, false, true},
		{`1e400`, false, false}, {`-`, false, false}, {`01`, false, false}, {`1.`, false, false}, {`.5`, false, false},
		{`"1"`, false, false}, {`1e`, false, false}, {`[]`, false, false}, {`{"a":[1,{"b":null}]}`, false, false},
	} {
		body := []byte(tc.body)
		checkScalars(t, body)
		r := NewReader(body)
		r.Bool()
		if got := r.End(); got != tc.bool {
			t.Errorf("Bool took %q: %v, want %v", body, got, tc.bool)
		}
		r = NewReader(body)
		r.Float()
		if got := r.End(); got != tc.float {
			t.Errorf("Float took %q: %v, want %v", body, got, tc.float)
		}
		r = NewReader(body)
		if raw := r.Raw(); r.End() != json.Valid(body) || (r.End() && string(raw) != strings.TrimSpace(tc.body)) {
			t.Errorf("Raw(%q) = %q, end %v", body, raw, r.End())
		}
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

func TestReaderSkipString(t *testing.T) {
	for _, tc := range []struct {
		body string
		ok   bool
	}{
		{`"plain"`, true}, {` null `, true}, {`"caf\u00e9 \ud83d"`, true}, {"\"a\xffb\"", true}, {`""`, true},
		{`5`, false}, {`{}`, false}, {`[]`, false}, {`true`, false}, {`nul`, false}, {`"\x"`, false}, {`"a`, false},
		{"\"a\tb\"", false}, {``, false},
	} {
		checkReader(t, []byte(tc.body))
		r := NewReader([]byte(tc.body))
		r.SkipString()
		if got := r.End(); got != tc.ok {
			t.Errorf("SkipString took %q: %v, want %v", tc.body, got, tc.ok)
		}
	}
}

func TestReaderReset(t *testing.T) {
	r := NewReader([]byte(`{"a":5}`))
	if s := r.String(); r.End() {
		t.Fatalf("String read an object as %q", s)
	}
	r.Reset([]byte(` "caf\u00e9" `))
	if s := r.String(); !r.End() || s != "café" {
		t.Fatalf("after Reset: String = %q, End %v", s, r.End())
	}
	r.Reset([]byte(`"x\ny"`))
	if s := r.String(); !r.End() || s != "x\ny" {
		t.Fatalf("second Reset: String = %q, End %v", s, r.End())
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
		checkScalars(t, body)
	})
}

// FuzzValid compares Valid with json.Valid on arbitrary bodies.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{"model":"m","messages":[{"role":"user","content":"x"}]}`, `[1,{"a":null}]`, `{"a":1,}`, `"\ud83d"`, strings.Repeat("[", 600) + strings.Repeat("]", 600)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if got, want := Valid(body), json.Valid(body); got != want {
			t.Fatalf("Valid = %v, json.Valid = %v for %q", got, want, body)
		}
	})
}

func TestValidDeep(t *testing.T) {
	deep := []byte(strings.Repeat("[", 2*maxReaderDepth) + strings.Repeat("]", 2*maxReaderDepth))
	if !Valid(deep) {
		t.Fatal("Valid rejects nesting deeper than Reader follows; json.Valid accepts it")
	}
	if Valid(deep[:len(deep)-1]) {
		t.Fatal("Valid accepts an unclosed deep array")
	}
}

func BenchmarkValid(b *testing.B) {
	body := []byte(`{"model":"gpt-4.1","messages":[{"role":"system","content":"You are a helpful assistant. Answer briefly and precisely, citing sources where you can."},{"role":"user","content":[{"type":"text","text":"What is the weather in Paris today, and should I take an umbrella? \u00e9\u00e8"}]}],"max_tokens":256,"temperature":0.2,"stream":false}`)
	b.Run("Valid", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			Valid(body)
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			json.Valid(body)
		}
	})
}

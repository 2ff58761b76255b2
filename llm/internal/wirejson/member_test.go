package wirejson

import (
	"errors"
	"fmt"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

// TestMemberSpans checks which values the scanner finds: top-level members
// of the key only, escaped spellings included, in body order.
func TestMemberSpans(t *testing.T) {
	tests := []struct {
		name, body, key string
		want            []string // the values the spans cover
	}{
		{"one", `{"model":"a","max_tokens":1}`, "model", []string{`"a"`}},
		{"other key", `{"model":"a","max_tokens":1}`, "max_tokens", []string{`1`}},
		{"none", `{"messages":[{"model":"x"}]}`, "model", nil},
		{"empty object", ` { } `, "model", nil},
		{"duplicates in order", `{"model":"a","x":{},"model":"c"}`, "model", []string{`"a"`, `"c"`}},
		{"escaped key", `{"mo\u0064el":1}`, "model", []string{`1`}},
		{"escaped quote is another key", `{"model\"":1}`, "model", nil},
		{"non-ASCII key", `{"modèl":1,"model":2}`, "modèl", []string{`1`}},
		{"spacing", "{\n \"model\" :\t[1, {\"model\": 2}] ,\"k\":true}", "model", []string{`[1, {"model": 2}]`}},
		{"literals", `{"model":null,"b":false,"model":-1.5e3}`, "model", []string{`null`, `-1.5e3`}},
		{"strings with braces and quotes", `{"s":"{\"model\":1}]","model":"}\"{"}`, "model", []string{`"}\"{"`}},
		{"last member, no comma", `{"a":{},"model":{"b":[]}}`, "model", []string{`{"b":[]}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans, err := MemberSpans([]byte(tt.body), tt.key)
			if err != nil {
				t.Fatal(err)
			}
			if len(spans) != len(tt.want) {
				t.Fatalf("got %d spans %v, want %q", len(spans), spans, tt.want)
			}
			for i, s := range spans {
				if got := tt.body[s.Start:s.End]; got != tt.want[i] {
					t.Errorf("span %d = %q, want %q", i, got, tt.want[i])
				}
			}
		})
	}
}

// TestSetMember checks that only the top-level member's value changes and
// that StringMember reads the new value back.
func TestSetMember(t *testing.T) {
	tests := []struct {
		name, body, model, want string
	}{
		{"simple", `{"model":"a","max_tokens":1}`, "b", `{"model":"b","max_tokens":1}`},
		{"replaces", `{"model":"gpt-4o","input":"hi"}`, "gpt-5", `{"model":"gpt-5","input":"hi"}`},
		{
			"unknown fields, spacing and order survive; nested models untouched",
			"{\n  \"stream\": true,\n  \"model\" : \"claude-3\" ,\n  \"betas\": {\"model\": \"nested\"},\n  \"z\": [1, {\"model\":\"n\"}, \"\\\"model\\\"\"],\n  \"x-new-beta\": {\"a\": [true, null, 1.5e3]}\n}\n",
			"claude-haiku-4-5",
			"{\n  \"stream\": true,\n  \"model\" : \"claude-haiku-4-5\" ,\n  \"betas\": {\"model\": \"nested\"},\n  \"z\": [1, {\"model\":\"n\"}, \"\\\"model\\\"\"],\n  \"x-new-beta\": {\"a\": [true, null, 1.5e3]}\n}\n",
		},
		{
			"keeps spacing and unknown members",
			"{\n  \"beta_x\": {\"model\": \"inner\"},\n  \"model\" :  \"a\" ,\n  \"input\": []\n}", "b",
			"{\n  \"beta_x\": {\"model\": \"inner\"},\n  \"model\" :  \"b\" ,\n  \"input\": []\n}",
		},
		{"escaped key", `{"mo\u0064el":"a","k":"v"}`, "b", `{"mo\u0064el":"b","k":"v"}`},
		{"escaped key, other letter", `{"mod\u0065l":"a","x":1}`, "b", `{"mod\u0065l":"b","x":1}`},
		{"duplicates all replaced", `{"model":"a","x":{},"model":"c"}`, "b", `{"model":"b","x":{},"model":"b"}`},
		{"non-string value replaced", `{"model":null}`, "b", `{"model":"b"}`},
		{"model last", `{"input":"x","model":"a"}`, "b", `{"input":"x","model":"b"}`},
		{"value needing escapes", `{"model":"a"}`, `x"y<z>\`, `{"model":"x\"y<z>\\"}`},
		{"escapes the new value", `{"model":"a"}`, `we"ird<>`, `{"model":"we\"ird<>"}`},
		{"string value mentioning model", `{"system":"\"model\": 1","model":"a"}`, "b", `{"system":"\"model\": 1","model":"b"}`},
		{"string containing braces", `{"input":"{\"model\":1}]","model":"a"}`, "b", `{"input":"{\"model\":1}]","model":"b"}`},
		{"missing model is added first", `{"max_tokens":1}`, "b", `{"model":"b","max_tokens":1}`},
		{"inserted when missing", `{"input":"x"}`, "b", `{"model":"b","input":"x"}`},
		{"empty object", ` { } `, "b", ` {"model":"b" } `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetMember([]byte(tt.body), "model", tt.model)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("SetMember =\n%s\nwant\n%s", got, tt.want)
			}
			if m, err := StringMember(got, "model"); err != nil || m != tt.model {
				t.Errorf("StringMember(result) = %q, %v; want %q", m, err, tt.model)
			}
		})
	}
}

// TestSetMemberKey checks that the key is a parameter, inserted encoded.
func TestSetMemberKey(t *testing.T) {
	got, err := SetMember([]byte(`{"model":"m"}`), "a<b", 7)
	if err != nil || string(got) != `{"a<b":7,"model":"m"}` {
		t.Errorf("SetMember = %s, %v", got, err)
	}
	if _, err := SetMember([]byte(`{}`), "k", make(chan int)); err == nil {
		t.Error("SetMember of an unencodable value: no error")
	}
}

// TestSetMemberErrors checks the error for bodies that are not one JSON
// object, by both scanner entry points.
func TestSetMemberErrors(t *testing.T) {
	tests := []struct{ body, reason string }{
		{``, "body is not valid JSON"},
		{`{`, "body is not valid JSON"},
		{`{"model":"a"} x`, "body is not valid JSON"},
		{`{"model":"a",}`, "body is not valid JSON"},
		{`[]`, "body is not a JSON object"},
		{`"model"`, "body is not a JSON object"},
		{` null `, "body is not a JSON object"},
	}
	for _, tt := range tests {
		_, setErr := SetMember([]byte(tt.body), "model", "b")
		_, readErr := StringMember([]byte(tt.body), "model")
		for _, err := range []error{setErr, readErr} {
			var bad *llm.BadRequestError
			if !errors.As(err, &bad) || bad.Field != "" || bad.Reason != tt.reason || !errors.Is(err, llm.ErrMalformed) {
				t.Errorf("%q: err = %#v, want *llm.BadRequestError{Reason: %q}", tt.body, err, tt.reason)
			}
		}
	}
}

// TestStringMember checks reading the member: the last one wins, a missing
// or null member is "", any other non-string is an error naming the key.
func TestStringMember(t *testing.T) {
	tests := []struct {
		body, want string
		err        bool
	}{
		{`{"model":"claude-sonnet-4-5","messages":[]}`, "claude-sonnet-4-5", false},
		{`{"messages":[{"model":"x"}]}`, "", false},
		{`{"model":"a","model":"b"}`, "b", false},
		{`{"model":1,"model":"b"}`, "b", false},
		{`{"model":"caf\u00e9"}`, "café", false},
		{`{"model":null}`, "", false},
		{`{"model":1}`, "", true},
		{`{"model":"a","model":{}}`, "", true},
		{` {"mo\u0064el" : "esc"} `, "esc", false},
		{`null`, "", true},
		{`[{"model":"x"}]`, "", true},
	}
	for _, tt := range tests {
		got, err := StringMember([]byte(tt.body), "model")
		// The variant for bodies already decoded answers the same.
		if g2, err2 := StringMemberOfValid([]byte(tt.body), "model"); g2 != got || fmt.Sprint(err2) != fmt.Sprint(err) {
			t.Errorf("StringMemberOfValid(%s) = %q, %v; StringMember = %q, %v", tt.body, g2, err2, got, err)
		}
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("StringMember(%s) = %q, %v; want %q, error %v", tt.body, got, err, tt.want, tt.err)
		}
		var bad *llm.BadRequestError
		if tt.err && tt.body[0] == '{' && (!errors.As(err, &bad) || bad.Field != "model" || bad.Reason != "expected a string") {
			t.Errorf("StringMember(%s) err = %#v, want field model, expected a string", tt.body, err)
		}
	}
}

// TestMarshalValue checks the plain-string shortcut against Marshal.
func TestMarshalValue(t *testing.T) {
	for _, v := range []any{"gpt-4.1", "", "a b/c:d@e<f>&", "x\"y", `back\slash`, "tab\t", "del\x7f", "é", "\u2028", "bad\xff", 5, nil, []string{"a"}} {
		got, err := marshalValue(v)
		want, werr := Marshal(v)
		if string(got) != string(want) || (err == nil) != (werr == nil) {
			t.Errorf("marshalValue(%#v) = %s, %v; Marshal = %s, %v", v, got, err, want, werr)
		}
	}
}

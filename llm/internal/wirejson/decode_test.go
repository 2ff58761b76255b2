package wirejson

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

// atOffset is a SyntaxReason that shows it was the one called.
func atOffset(e *json.SyntaxError) string {
	return fmt.Sprintf("bad JSON at %d", e.Offset)
}

// failing is a type whose UnmarshalJSON always fails.
type failing struct{}

func (*failing) UnmarshalJSON([]byte) error { return errors.New("boom") }

type inner struct {
	C int `json:"c"`
}

type outer struct {
	A string  `json:"a"`
	B inner   `json:"b"`
	P *inner  `json:"p"`
	F failing `json:"f"`
}

// TestUnmarshal checks the decoded value and, on failure, the field and
// reason of the *llm.BadRequestError.
func TestUnmarshal(t *testing.T) {
	tests := []struct {
		name, data, path   string
		wantField, wantWhy string // "" wantWhy: no error
		want               outer
	}{
		{name: "ok", data: `{"a":"x","b":{"c":2}}`, path: "p", want: outer{A: "x", B: inner{C: 2}}},
		{name: "type at top", data: `{"a":1}`, wantField: "a", wantWhy: "expected a string, got number"},
		{name: "type nested, under path", data: `{"b":{"c":"x"}}`, path: "messages[0]", wantField: "messages[0].b.c", wantWhy: "expected an integer, got string"},
		{name: "type through pointer", data: `{"p":[]}`, path: "x", wantField: "x.p", wantWhy: "expected an object, got array"},
		{name: "whole value", data: `[]`, path: "tools[1]", wantField: "tools[1]", wantWhy: "expected an object, got array"},
		{name: "syntax", data: `{"a":`, path: "body", wantField: "body", wantWhy: "bad JSON at 5"},
		{name: "other error", data: `{"f":{}}`, path: "q", wantField: "q", wantWhy: "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got outer
			err := Unmarshal([]byte(tt.data), &got, tt.path, atOffset)
			if tt.wantWhy == "" {
				if err != nil || !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
				}
				return
			}
			var bad *llm.BadRequestError
			if !errors.As(err, &bad) || bad.Field != tt.wantField || bad.Reason != tt.wantWhy || !errors.Is(err, llm.ErrMalformed) {
				t.Errorf("err = %#v, want field %q reason %q", err, tt.wantField, tt.wantWhy)
			}
		})
	}
}

// TestUnmarshalNilOnSuccess checks that success is an untyped nil error.
func TestUnmarshalNilOnSuccess(t *testing.T) {
	var s string
	if err := Unmarshal([]byte(`"x"`), &s, "", atOffset); err != nil || s != "x" {
		t.Fatalf("Unmarshal = %q, %#v", s, err)
	}
}

type tool struct {
	Name string `json:"name"`
}

// TestUnmarshalList checks the one-pass result and that errors name the
// element at fault.
func TestUnmarshalList(t *testing.T) {
	tests := []struct {
		name, raw          string
		want               []tool
		wantField, wantWhy string
	}{
		{name: "ok", raw: `[{"name":"a"},{"name":"b"}]`, want: []tool{{"a"}, {"b"}}},
		{name: "empty", raw: `[]`, want: []tool{}},
		{name: "null", raw: `null`, want: nil},
		{name: "element at fault", raw: `[{"name":"a"},{"name":3}]`, wantField: "tools[1].name", wantWhy: "expected a string, got number"},
		{name: "element not an object", raw: `[{"name":"a"},"b"]`, wantField: "tools[1]", wantWhy: "expected an object, got string"},
		{name: "not an array", raw: `{"name":"a"}`, wantField: "tools", wantWhy: "expected an array, got object"},
		{name: "syntax", raw: `[{"name":`, wantField: "tools", wantWhy: "bad JSON at 9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := UnmarshalList[tool](json.RawMessage(tt.raw), "tools", atOffset)
			if tt.wantWhy == "" {
				if err != nil || !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("got %#v, %v; want %#v", got, err, tt.want)
				}
				return
			}
			var bad *llm.BadRequestError
			if got != nil || !errors.As(err, &bad) || bad.Field != tt.wantField || bad.Reason != tt.wantWhy {
				t.Errorf("got %v, %#v; want field %q reason %q", got, err, tt.wantField, tt.wantWhy)
			}
		})
	}
}

// TestTypeName checks the words for each Go kind a decoder can want.
func TestTypeName(t *testing.T) {
	tests := []struct {
		t    reflect.Type
		want string
	}{
		{nil, "a value"},
		{reflect.TypeFor[string](), "a string"},
		{reflect.TypeFor[json.Number](), "a string"},
		{reflect.TypeFor[bool](), "a boolean"},
		{reflect.TypeFor[int](), "an integer"},
		{reflect.TypeFor[int8](), "an integer"},
		{reflect.TypeFor[uint16](), "an integer"},
		{reflect.TypeFor[uint64](), "an integer"},
		{reflect.TypeFor[float32](), "a number"},
		{reflect.TypeFor[float64](), "a number"},
		{reflect.TypeFor[[]int](), "an array"},
		{reflect.TypeFor[[2]int](), "an array"},
		{reflect.TypeFor[map[string]int](), "an object"},
		{reflect.TypeFor[inner](), "an object"},
		{reflect.TypeFor[*inner](), "an object"},
		{reflect.TypeFor[**bool](), "a boolean"},
		{reflect.TypeFor[fmt.Stringer](), "interface"},
		{reflect.TypeFor[chan int](), "chan"},
	}
	for _, tt := range tests {
		if got := typeName(tt.t); got != tt.want {
			t.Errorf("typeName(%v) = %q, want %q", tt.t, got, tt.want)
		}
	}
}

func TestContent(t *testing.T) {
	type item struct{ Type, Text string }
	part := func(it *item, path string) (llm.Part, bool, error) {
		switch it.Type {
		case "text":
			return llm.Part{Type: llm.PartText, Text: it.Text}, true, nil
		case "skip":
			return llm.Part{}, false, nil
		}
		return llm.Part{}, false, &llm.BadRequestError{Field: path + ".type", Reason: "unknown"}
	}
	tests := []struct {
		name, raw string
		want      []string
		field     string
	}{
		{"string", `"hi"`, []string{"hi"}, ""},
		{"array, skipped elements left out", `[{"type":"text","text":"a"},{"type":"skip"},{"type":"text","text":"b"}]`, []string{"a", "b"}, ""},
		{"null", `null`, nil, "content"},
		{"absent", ``, nil, "content"},
		{"element error names its index", `[{"type":"text"},{"type":"x"}]`, nil, "content[1].type"},
		{"element of the wrong type", `[{"type":"text"},7]`, nil, "content[1]"},
		{"neither string nor array", `{"type":"text"}`, nil, "content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts, err := Content(json.RawMessage(tt.raw), "content", AtByte, part)
			if tt.field != "" {
				var bad *llm.BadRequestError
				if !errors.As(err, &bad) || bad.Field != tt.field {
					t.Fatalf("err = %v, want a bad request at %q", err, tt.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range parts {
				if p.Type != llm.PartText {
					t.Errorf("part type %q", p.Type)
				}
				got = append(got, p.Text)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("parts %q, want %q", got, tt.want)
			}
		})
	}
}

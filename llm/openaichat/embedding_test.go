package openaichat

import (
	"errors"
	"reflect"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

func TestDecodeEmbeddingRequest(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		want       llm.EmbeddingRequest
		wantField  string // a *BadRequestError naming this field
	}{
		{name: "string", body: `{"model":"text-embedding-3-small","input":"hello"}`,
			want: llm.EmbeddingRequest{Model: "text-embedding-3-small", Inputs: 1, Texts: []string{"hello"}, EncodingFormat: "float"}},
		{name: "strings, dimensions, base64", body: `{"model":"m","input":["a","b","c"],"dimensions":256,"encoding_format":"base64"}`,
			want: llm.EmbeddingRequest{Model: "m", Inputs: 3, Texts: []string{"a", "b", "c"}, Dimensions: 256, EncodingFormat: "base64"}},
		{name: "token ids", body: `{"model":"m","input":[1,2,3]}`, want: llm.EmbeddingRequest{Model: "m", Inputs: 1, EncodingFormat: "float"}},
		{name: "token arrays", body: `{"model":"m","input":[[1,2],[3]]}`, want: llm.EmbeddingRequest{Model: "m", Inputs: 2, EncodingFormat: "float"}},
		{name: "no model", body: `{"input":"a"}`, wantField: "model"},
		{name: "model not a string", body: `{"model":3,"input":"a"}`, wantField: "model"},
		{name: "no input", body: `{"model":"m"}`, wantField: "input"},
		{name: "empty string", body: `{"model":"m","input":""}`, wantField: "input"},
		{name: "empty array", body: `{"model":"m","input":[]}`, wantField: "input"},
		{name: "object input", body: `{"model":"m","input":{"a":1}}`, wantField: "input"},
		{name: "empty item", body: `{"model":"m","input":["a",""]}`, wantField: "input[1]"},
		{name: "empty token array", body: `{"model":"m","input":[[1],[]]}`, wantField: "input[1]"},
		{name: "zero dimensions", body: `{"model":"m","input":"a","dimensions":0}`, wantField: "dimensions"},
		{name: "unknown encoding", body: `{"model":"m","input":"a","encoding_format":"int8"}`, wantField: "encoding_format"},
		{name: "not JSON", body: `{`, wantField: ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := New().DecodeEmbeddingRequest([]byte(tt.body))
			if tt.want.Model == "" {
				var bad *llm.BadRequestError
				if !errors.As(err, &bad) || bad.Field != tt.wantField || !errors.Is(err, llm.ErrMalformed) {
					t.Fatalf("err %v, want a bad request naming %q", err, tt.wantField)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got %+v, want %+v", *got, tt.want)
			}
		})
	}
}

func TestDecodeEmbeddingRequestBound(t *testing.T) {
	body := []byte(`{"model":"m","input":[` + repeat(`"a",`, maxEmbeddingInputs) + `"a"]}`)
	var bad *llm.BadRequestError
	if _, err := New().DecodeEmbeddingRequest(body); !errors.As(err, &bad) || bad.Field != "input" {
		t.Fatalf("%d inputs: %v", maxEmbeddingInputs+1, err)
	}
}

func repeat(s string, n int) string {
	out := make([]byte, 0, len(s)*n)
	for range n {
		out = append(out, s...)
	}
	return string(out)
}

func TestEmbeddingUsage(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		want       int
		wantErr    bool
	}{
		{name: "usage", body: `{"object":"list","data":[],"usage":{"prompt_tokens":42,"total_tokens":42}}`, want: 42},
		{name: "zero tokens", body: `{"usage":{"prompt_tokens":0,"total_tokens":0}}`, want: 0},
		{name: "no usage", body: `{"object":"list","data":[]}`, wantErr: true},
		{name: "no prompt tokens", body: `{"usage":{"total_tokens":3}}`, wantErr: true},
		{name: "not JSON", body: `<html>`, wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u, err := New().EmbeddingUsage([]byte(tt.body))
			if tt.wantErr {
				if !errors.Is(err, llm.ErrMalformed) {
					t.Fatalf("err %v, want ErrMalformed", err)
				}
				return
			}
			if err != nil || u != (llm.Usage{Input: tt.want}) {
				t.Errorf("usage %+v err %v, want %d input tokens", u, err, tt.want)
			}
		})
	}
}

func TestEmbeddingRoundTrip(t *testing.T) {
	c := New()
	body, err := c.EncodeEmbeddingRequest(&llm.EmbeddingRequest{Model: "m", Texts: []string{"a", "b"}, Dimensions: 4, EncodingFormat: "base64"})
	if err != nil || string(body) != `{"model":"m","input":["a","b"],"dimensions":4,"encoding_format":"float"}` {
		t.Fatalf("encoded %s (%v)", body, err)
	}
	if _, err := c.EncodeEmbeddingRequest(&llm.EmbeddingRequest{Model: "m", Inputs: 1}); err == nil {
		t.Error("a token-id request was re-encoded")
	}
	e, err := c.DecodeEmbeddings([]byte(`{"model":"m","data":[{"index":1,"embedding":[2]},{"index":0,"embedding":[1]}],"usage":{"prompt_tokens":5,"total_tokens":5}}`))
	if err != nil || !reflect.DeepEqual(e.Vectors, [][]float64{{1}, {2}}) || e.Usage.Input != 5 || e.Model != "m" {
		t.Fatalf("decoded %+v (%v)", e, err)
	}
	for _, bad := range []string{
		`{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}],"usage":{"prompt_tokens":1}}`,
		`{"data":[{"index":2,"embedding":[1]}],"usage":{"prompt_tokens":1}}`,
		`{"data":[{"index":0,"embedding":"AAAA"}],"usage":{"prompt_tokens":1}}`,
		`{"data":[{"index":0,"embedding":[1]}]}`,
	} {
		if _, err := c.DecodeEmbeddings([]byte(bad)); !errors.Is(err, llm.ErrMalformed) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

package gemini

import (
	"errors"
	"reflect"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

func TestDecodeEmbeddingRequest(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		want       *llm.EmbeddingRequest
		wantField  string
	}{
		{name: "embedContent", body: `{"model":"models/gemini-embedding-001","content":{"parts":[{"text":"a"},{"text":"b"}]},"outputDimensionality":768,"taskType":"RETRIEVAL_QUERY"}`,
			want: &llm.EmbeddingRequest{Model: "gemini-embedding-001", Inputs: 1, Texts: []string{"a\nb"}, Dimensions: 768, EncodingFormat: "float"}},
		{name: "batch", body: `{"requests":[{"model":"models/m","content":{"parts":[{"text":"x"}]},"outputDimensionality":4},{"content":{"parts":[{"text":"y"}]},"outputDimensionality":4}]}`,
			want: &llm.EmbeddingRequest{Inputs: 2, Texts: []string{"x", "y"}, Dimensions: 4, EncodingFormat: "float", Batch: true}},
		{name: "no content", body: `{"model":"m"}`, wantField: "content"},
		{name: "no parts", body: `{"content":{"parts":[]}}`, wantField: "content"},
		{name: "non-text part", body: `{"content":{"parts":[{"inlineData":{"mimeType":"image/png","data":""}}]}}`, wantField: "content.parts[0].text"},
		{name: "empty batch", body: `{"requests":[]}`, wantField: "requests"},
		{name: "batch item without text", body: `{"requests":[{"content":{"parts":[{"text":"x"}]}},{"content":{"parts":[{"text":""}]}}]}`, wantField: "requests[1].content.parts[0].text"},
		{name: "zero dimensions", body: `{"content":{"parts":[{"text":"x"}]},"outputDimensionality":0}`, wantField: "outputDimensionality"},
		{name: "batch dimensions differ", body: `{"requests":[{"content":{"parts":[{"text":"x"}]},"outputDimensionality":4},{"content":{"parts":[{"text":"y"}]}}]}`,
			wantField: "requests[1].outputDimensionality"},
		{name: "not JSON", body: `[`, wantField: ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := New().DecodeEmbeddingRequest([]byte(tt.body))
			if tt.want == nil {
				var bad *llm.BadRequestError
				if !errors.As(err, &bad) || bad.Field != tt.wantField {
					t.Fatalf("err %v, want a bad request naming %q", err, tt.wantField)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v (%v), want %+v", got, err, tt.want)
			}
		})
	}
}

func TestEncodeEmbeddings(t *testing.T) {
	for _, tt := range []struct {
		name    string
		in      llm.Embeddings
		want    string
		wantErr bool
	}{
		{name: "one", in: llm.Embeddings{Vectors: [][]float64{{0.5, 1}}}, want: `{"embedding":{"values":[0.5,1]}}`},
		{name: "batch", in: llm.Embeddings{Vectors: [][]float64{{1}, {2}}, Batch: true}, want: `{"embeddings":[{"values":[1]},{"values":[2]}]}`},
		{name: "two vectors for one", in: llm.Embeddings{Vectors: [][]float64{{1}, {2}}}, wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := New().EncodeEmbeddings(&tt.in)
			if tt.wantErr {
				if !errors.Is(err, llm.ErrMalformed) {
					t.Fatalf("err %v", err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("got %s (%v), want %s", got, err, tt.want)
			}
		})
	}
}

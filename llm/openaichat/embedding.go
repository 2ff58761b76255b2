package openaichat

import (
	"encoding/json"
	"fmt"

	"github.com/heddle-gw/heddle/llm"
)

var _ llm.EmbeddingCodec = (*Codec)(nil)

// maxEmbeddingInputs is OpenAI's documented bound on inputs per request.
const maxEmbeddingInputs = 2048

type embeddingWire struct {
	Model          json.RawMessage `json:"model"`
	Input          json.RawMessage `json:"input"`
	Dimensions     *int            `json:"dimensions"`
	EncodingFormat *string         `json:"encoding_format"`
}

// DecodeEmbeddingRequest validates a /v1/embeddings body: a model, an input
// that is a non-empty string, an array of non-empty strings, an array of
// token ids or an array of token arrays, an optional positive dimensions
// and an encoding_format of "float" or "base64".
func (*Codec) DecodeEmbeddingRequest(body []byte) (*llm.EmbeddingRequest, error) {
	var w embeddingWire
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, &llm.BadRequestError{Reason: "body is not a JSON object: " + err.Error()}
	}
	model, err := modelOf(body)
	if err != nil {
		return nil, err
	}
	if model == "" {
		return nil, &llm.BadRequestError{Field: "model", Reason: "is required"}
	}
	n, err := embeddingInputs(w.Input)
	if err != nil {
		return nil, err
	}
	r := &llm.EmbeddingRequest{Model: model, Inputs: n, Texts: embeddingTexts(w.Input), EncodingFormat: "float"}
	if w.Dimensions != nil {
		if *w.Dimensions <= 0 {
			return nil, &llm.BadRequestError{Field: "dimensions", Reason: "must be a positive integer"}
		}
		r.Dimensions = *w.Dimensions
	}
	if w.EncodingFormat != nil {
		if f := *w.EncodingFormat; f != "float" && f != "base64" {
			return nil, &llm.BadRequestError{Field: "encoding_format", Reason: `must be "float" or "base64"`}
		}
		r.EncodingFormat = *w.EncodingFormat
	}
	return r, nil
}

// embeddingInputs counts the inputs of an "input" member.
func embeddingInputs(raw json.RawMessage) (int, error) {
	bad := func(reason string) error { return &llm.BadRequestError{Field: "input", Reason: reason} }
	if len(raw) == 0 || string(raw) == "null" {
		return 0, bad("is required")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return 0, bad("must not be empty")
		}
		return 1, nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return 0, bad("must be a string, an array of strings, or an array of token arrays")
	}
	if len(items) == 0 {
		return 0, bad("must not be an empty array")
	}
	if len(items) > maxEmbeddingInputs {
		return 0, bad(fmt.Sprintf("at most %d inputs per request", maxEmbeddingInputs))
	}
	var tokens []int
	if json.Unmarshal(raw, &tokens) == nil {
		return 1, nil // one input given as token ids
	}
	for i, it := range items {
		if json.Unmarshal(it, &s) == nil && s != "" {
			continue
		}
		if json.Unmarshal(it, &tokens) == nil && len(tokens) > 0 {
			continue
		}
		return 0, &llm.BadRequestError{Field: fmt.Sprintf("input[%d]", i), Reason: "must be a non-empty string or token array"}
	}
	return len(items), nil
}

// embeddingTexts is a valid input's texts, nil when it holds token ids.
func embeddingTexts(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var texts []string
	if json.Unmarshal(raw, &texts) == nil {
		return texts
	}
	return nil
}

// EncodeEmbeddingRequest renders r's texts as a float embeddings request.
func (*Codec) EncodeEmbeddingRequest(r *llm.EmbeddingRequest) ([]byte, error) {
	if len(r.Texts) == 0 {
		return nil, &llm.BadRequestError{Field: "input", Reason: "no text to embed"}
	}
	w := struct {
		Model          string   `json:"model"`
		Input          []string `json:"input"`
		Dimensions     int      `json:"dimensions,omitempty"`
		EncodingFormat string   `json:"encoding_format"`
	}{Model: r.Model, Input: r.Texts, Dimensions: r.Dimensions, EncodingFormat: "float"}
	return json.Marshal(w)
}

// DecodeEmbeddings reads a float embeddings answer, vectors in index order.
func (c *Codec) DecodeEmbeddings(body []byte) (*llm.Embeddings, error) {
	var w struct {
		Model string `json:"model"`
		Data  []struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("%w: embeddings answer: %w", llm.ErrMalformed, err)
	}
	u, err := c.EmbeddingUsage(body)
	if err != nil {
		return nil, err
	}
	e := &llm.Embeddings{Model: w.Model, Vectors: make([][]float64, len(w.Data)), Usage: u}
	for _, d := range w.Data {
		if d.Index < 0 || d.Index >= len(w.Data) || e.Vectors[d.Index] != nil {
			return nil, fmt.Errorf("%w: embeddings answer: bad or repeated index %d", llm.ErrMalformed, d.Index)
		}
		e.Vectors[d.Index] = d.Embedding
	}
	for i, v := range e.Vectors {
		if len(v) == 0 {
			return nil, fmt.Errorf("%w: embeddings answer: no vector at index %d", llm.ErrMalformed, i)
		}
	}
	return e, nil
}

// EmbeddingUsage reads usage.prompt_tokens of an embeddings answer.
func (*Codec) EmbeddingUsage(body []byte) (llm.Usage, error) {
	var w struct {
		Usage *struct {
			PromptTokens *int `json:"prompt_tokens"`
			TotalTokens  int  `json:"total_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return llm.Usage{}, fmt.Errorf("%w: embeddings answer: %w", llm.ErrMalformed, err)
	}
	if w.Usage == nil || w.Usage.PromptTokens == nil {
		return llm.Usage{}, fmt.Errorf("%w: embeddings answer without usage.prompt_tokens", llm.ErrMalformed)
	}
	return llm.Usage{Input: *w.Usage.PromptTokens}, nil
}

package gemini

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/heddle-gw/heddle/llm"
)

var (
	_ llm.EmbeddingRequestDecoder = (*Codec)(nil)
	_ llm.EmbeddingEncoder        = (*Codec)(nil)
)

// maxBatchEmbeds bounds the requests of one batchEmbedContents.
const maxBatchEmbeds = 2048

type embedContentWire struct {
	Model   string `json:"model"`
	Content *struct {
		Parts []struct {
			Text *string `json:"text"`
		} `json:"parts"`
	} `json:"content"`
	OutputDimensionality *int `json:"outputDimensionality"`
}

// DecodeEmbeddingRequest reads an embedContent body ({"content": ...}) or a
// batchEmbedContents body ({"requests": [...]}, Batch set). Each content is
// one input: the text of its parts, joined by newlines. The model is the
// URL's, which the caller sets; a batch's requests must agree on
// outputDimensionality (they go upstream as one call).
func (*Codec) DecodeEmbeddingRequest(body []byte) (*llm.EmbeddingRequest, error) {
	var w struct {
		embedContentWire
		Requests *[]embedContentWire `json:"requests"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, &llm.BadRequestError{Reason: "body is not a JSON object: " + err.Error()}
	}
	items, prefix := []embedContentWire{w.embedContentWire}, ""
	r := &llm.EmbeddingRequest{Model: strings.TrimPrefix(w.Model, "models/"), EncodingFormat: "float"}
	if w.Requests != nil {
		items, prefix, r.Batch = *w.Requests, "requests", true
		if len(items) == 0 || len(items) > maxBatchEmbeds {
			return nil, &llm.BadRequestError{Field: "requests", Reason: fmt.Sprintf("must hold 1 to %d requests", maxBatchEmbeds)}
		}
	}
	for i, it := range items {
		field := "content"
		if r.Batch {
			field = fmt.Sprintf("%s[%d].content", prefix, i)
		}
		text, err := contentText(it, field)
		if err != nil {
			return nil, err
		}
		r.Texts = append(r.Texts, text)
		dims := 0
		if it.OutputDimensionality != nil {
			if dims = *it.OutputDimensionality; dims <= 0 {
				return nil, &llm.BadRequestError{Field: strings.TrimSuffix(field, "content") + "outputDimensionality", Reason: "must be a positive integer"}
			}
		}
		if i > 0 && dims != r.Dimensions {
			return nil, &llm.BadRequestError{Field: fmt.Sprintf("requests[%d].outputDimensionality", i), Reason: "must be the same in every request of a batch"}
		}
		r.Dimensions = dims
	}
	r.Inputs = len(r.Texts)
	return r, nil
}

// contentText is the text of one content, or a bad request naming field.
func contentText(it embedContentWire, field string) (string, error) {
	if it.Content == nil || len(it.Content.Parts) == 0 {
		return "", &llm.BadRequestError{Field: field, Reason: "needs at least one part"}
	}
	texts := make([]string, 0, len(it.Content.Parts))
	for j, p := range it.Content.Parts {
		if p.Text == nil || *p.Text == "" {
			return "", &llm.BadRequestError{Field: fmt.Sprintf("%s.parts[%d].text", field, j), Reason: "only non-empty text parts can be embedded"}
		}
		texts = append(texts, *p.Text)
	}
	return strings.Join(texts, "\n"), nil
}

// EncodeEmbeddings writes {"embedding": {"values": ...}} for one input, or
// {"embeddings": [...]} for a batch.
func (*Codec) EncodeEmbeddings(e *llm.Embeddings) ([]byte, error) {
	type values struct {
		Values []float64 `json:"values"`
	}
	vs := make([]values, len(e.Vectors))
	for i, v := range e.Vectors {
		vs[i] = values{Values: v}
	}
	if e.Batch {
		return json.Marshal(struct {
			Embeddings []values `json:"embeddings"`
		}{vs})
	}
	if len(vs) != 1 {
		return nil, fmt.Errorf("%w: %d vectors for one embedContent", llm.ErrMalformed, len(vs))
	}
	return json.Marshal(struct {
		Embedding values `json:"embedding"`
	}{vs[0]})
}

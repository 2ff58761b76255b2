package dispatchtest

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
)

// defaultEmbeddingDims is the vector size when the request names none.
const defaultEmbeddingDims = 8

// embeddingBody is OpenAI's embeddings answer to body: one vector per
// input (of the requested dimensions, floats or base64 as asked), derived
// from the input's index so a test can tell them apart, and the step's
// input tokens as usage.
func embeddingBody(body []byte, st Step, model string) []byte {
	var req struct {
		Input          json.RawMessage `json:"input"`
		Dimensions     int             `json:"dimensions"`
		EncodingFormat string          `json:"encoding_format"`
	}
	_ = json.Unmarshal(body, &req)
	n := 1
	var items []json.RawMessage
	var tokens []int
	if json.Unmarshal(req.Input, &items) == nil && json.Unmarshal(req.Input, &tokens) != nil {
		n = len(items)
	}
	dims := req.Dimensions
	if dims <= 0 {
		dims = defaultEmbeddingDims
	}
	type item struct {
		Object    string `json:"object"`
		Index     int    `json:"index"`
		Embedding any    `json:"embedding"`
	}
	data := make([]item, n)
	for i := range data {
		vec := make([]float32, dims)
		for j := range vec {
			vec[j] = float32(i+1) / float32(j+2)
		}
		data[i] = item{Object: "embedding", Index: i, Embedding: vec}
		if req.EncodingFormat == "base64" {
			buf := make([]byte, 4*dims)
			for j, v := range vec {
				binary.LittleEndian.PutUint32(buf[4*j:], math.Float32bits(v))
			}
			data[i].Embedding = base64.StdEncoding.EncodeToString(buf)
		}
	}
	in, _ := st.usage()
	out, _ := json.Marshal(map[string]any{
		"object": "list", "data": data, "model": model,
		"usage": map[string]int{"prompt_tokens": in, "total_tokens": in},
	})
	return out
}

package llm

// EmbeddingRequest is the part of an embeddings request Heddle reads: which
// model, how many inputs (for limits and records). The caller's body is
// forwarded as is (with its model replaced), so every other field survives.
type EmbeddingRequest struct {
	Model string
	// Inputs is how many inputs the request embeds (1 for a single string
	// or token array).
	Inputs int
	// Dimensions is the requested vector size; 0 means the model's default.
	Dimensions int
	// EncodingFormat is "float" (the default) or "base64".
	EncodingFormat string
}

// EmbeddingCodec is an optional ability of a Codec, found by type
// assertion: the wire format has an embeddings endpoint.
type EmbeddingCodec interface {
	// DecodeEmbeddingRequest validates an embeddings request body. Errors
	// are *BadRequestError naming the offending field.
	DecodeEmbeddingRequest(body []byte) (*EmbeddingRequest, error)
	// EmbeddingUsage reads the token usage of an upstream's embeddings
	// answer (all of it is input); an answer without usage is an error.
	EmbeddingUsage(body []byte) (Usage, error)
}

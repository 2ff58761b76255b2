package llm

// EmbeddingRequest is an embeddings request in canonical form.
type EmbeddingRequest struct {
	Model string
	// Inputs is how many inputs the request embeds (1 for a single string
	// or token array).
	Inputs int
	// Texts are the inputs when they were given as text; nil when any was
	// given as token ids (such a request can only be forwarded as is).
	Texts []string
	// Dimensions is the requested vector size; 0 means the model's default.
	Dimensions int
	// EncodingFormat is "float" (the default) or "base64".
	EncodingFormat string
	// Batch says the caller asked for a list of answers (Gemini's
	// batchEmbedContents) rather than one.
	Batch bool
}

// Embeddings is an embeddings answer in canonical form.
type Embeddings struct {
	Model   string
	Vectors [][]float64
	Usage   Usage
	// Batch is the request's Batch, for the caller's encoder.
	Batch bool
}

// EmbeddingRequestDecoder is an optional ability of a Codec, found by type
// assertion: the format has a caller-facing embeddings request.
type EmbeddingRequestDecoder interface {
	// DecodeEmbeddingRequest validates an embeddings request body. Errors
	// are *BadRequestError naming the offending field.
	DecodeEmbeddingRequest(body []byte) (*EmbeddingRequest, error)
}

// EmbeddingEncoder is an optional ability of a Codec: it writes an
// embeddings answer in the format's shape (for a caller whose format is
// not the upstream's).
type EmbeddingEncoder interface {
	EncodeEmbeddings(e *Embeddings) ([]byte, error)
}

// EmbeddingCodec is an optional ability of a Codec whose format is spoken
// by embeddings upstreams (OpenAI's): requests in, answers and their usage
// out.
type EmbeddingCodec interface {
	EmbeddingRequestDecoder
	// EncodeEmbeddingRequest renders r (which must have Texts) as an
	// upstream request body asking for float vectors.
	EncodeEmbeddingRequest(r *EmbeddingRequest) ([]byte, error)
	// DecodeEmbeddings reads an upstream's float answer.
	DecodeEmbeddings(body []byte) (*Embeddings, error)
	// EmbeddingUsage reads the token usage of an upstream's embeddings
	// answer (all of it is input); an answer without usage is an error.
	EmbeddingUsage(body []byte) (Usage, error)
}

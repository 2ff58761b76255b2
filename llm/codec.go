package llm

import "io"

// RequestCodec decodes and encodes requests of one wire format.
type RequestCodec interface {
	// DecodeRequest parses a caller's request body. Errors are *BadRequestError
	// naming the offending field.
	DecodeRequest(body []byte) (*Request, error)
	// EncodeRequest renders r as this format's request body (for an upstream).
	EncodeRequest(r *Request) ([]byte, error)
}

// ResponseCodec decodes and encodes complete responses of one wire format.
type ResponseCodec interface {
	DecodeResponse(body []byte) (*Response, error)
	EncodeResponse(r *Response) ([]byte, error)
}

// StreamDecoder turns an upstream's SSE stream into canonical events.
type StreamDecoder interface {
	// Next returns the next event. It returns io.EOF after the stream ends
	// cleanly; any other error means the stream broke or was malformed.
	Next() (Event, error)
}

// StreamEncoder writes canonical events as this format's SSE stream.
type StreamEncoder interface {
	// Encode writes one event. Events this format has no frame for are dropped.
	Encode(e Event) error
}

// Codec is everything Heddle needs of one wire format.
type Codec interface {
	Format() Format
	RequestCodec
	ResponseCodec
	NewStreamDecoder(r io.Reader) StreamDecoder
	NewStreamEncoder(w io.Writer) StreamEncoder
	// EncodeError renders an error body in this format's native error shape.
	EncodeError(status int, kind, message string) []byte
	// SetModel returns body with its model field replaced (the same-format fast
	// path: every other byte and unknown field survives). Gemini carries the
	// model in the URL, so its SetModel returns body unchanged.
	SetModel(body []byte, model string) ([]byte, error)
	// ModelOf returns the model a request body names without decoding the
	// rest of it, read exactly as DecodeRequest reads it: for every body
	// DecodeRequest accepts, ModelOf returns that request's Model and no
	// error. (Where the key repeats, both take the last top-level "model"
	// member; a key spelled with escapes counts, other letter cases and nested
	// members do not.) A body without a model yields "" or, for a format whose
	// ModelOf requires one, a *BadRequestError naming "model". Gemini carries
	// the model in the URL: its ModelOf always returns "" and no error.
	ModelOf(body []byte) (string, error)
}

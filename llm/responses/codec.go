package responses

import (
	"io"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/openaierr"
)

// family is the reasoning family of every OpenAI model.
const family = "openai"

// Codec translates the OpenAI Responses wire format. The zero value is ready
// to use; it holds no state and is safe for concurrent use.
type Codec struct{}

var _ llm.Codec = (*Codec)(nil)

// New returns a Responses codec.
func New() *Codec { return &Codec{} }

// Format returns llm.FormatResponses.
func (*Codec) Format() llm.Format { return llm.FormatResponses }

// NewStreamDecoder returns a decoder of a Responses SSE stream read from r.
func (*Codec) NewStreamDecoder(r io.Reader) llm.StreamDecoder { return newStreamDecoder(r) }

// NewStreamEncoder returns an encoder writing a Responses SSE stream to w.
func (*Codec) NewStreamEncoder(w io.Writer) llm.StreamEncoder { return newStreamEncoder(w) }

// EncodeError renders OpenAI's {"error":{message,type,param,code}} shape.
// kind is Heddle's Anthropic-style error type (or empty, in which case
// status decides); the type and code come from OpenAI's one error table
// (llm/internal/openaierr), which the Chat Completions codec shares.
func (*Codec) EncodeError(status int, kind, message string) []byte {
	return openaierr.Encode(status, kind, message)
}

package anthropic

import (
	"io"

	"github.com/heddle-gw/heddle/llm"
)

// DefaultMaxTokens is the max_tokens sent upstream when the canonical request
// leaves it unset: the Messages API requires the field.
const DefaultMaxTokens = 4096

// Codec is the Anthropic Messages codec. The zero value is not ready; use New.
type Codec struct {
	// NewID returns a fresh identifier with the given prefix ("msg_",
	// "toolu_") for the ids the canonical form lacks. Tests replace it to get
	// stable output.
	NewID func(prefix string) string
}

var _ llm.Codec = (*Codec)(nil)

// New returns a Codec that generates random ids.
func New() *Codec { return &Codec{NewID: RandomID} }

// Format reports llm.FormatAnthropic.
func (*Codec) Format() llm.Format { return llm.FormatAnthropic }

// NewStreamDecoder returns a decoder of an upstream's Messages SSE stream.
func (c *Codec) NewStreamDecoder(r io.Reader) llm.StreamDecoder { return newStreamDecoder(r) }

// NewStreamEncoder returns an encoder that writes canonical events to w as a
// Messages SSE stream.
func (c *Codec) NewStreamEncoder(w io.Writer) llm.StreamEncoder { return newStreamEncoder(c, w) }

func (c *Codec) id(prefix string) string {
	if c.NewID == nil {
		return RandomID(prefix)
	}
	return c.NewID(prefix)
}

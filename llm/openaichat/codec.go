package openaichat

import (
	"io"
	"time"

	"github.com/heddle-gw/heddle/llm"
)

// Codec is the Chat Completions codec. The zero value is not ready; use New.
type Codec struct {
	// NewID returns a fresh identifier with the given prefix ("chatcmpl-",
	// "call_") for the ids the canonical form lacks.
	NewID func(prefix string) string
	// Now gives the "created" time of responses and chunks whose canonical
	// form carries none.
	Now func() time.Time
	// LegacyMaxTokens writes max_tokens instead of max_completion_tokens, for
	// OpenAI-compatible upstreams that only know the older field.
	LegacyMaxTokens bool
}

var _ llm.Codec = (*Codec)(nil)

// New returns a Codec with random ids and the wall clock.
func New() *Codec { return &Codec{NewID: RandomID, Now: time.Now} }

// Format reports llm.FormatChat.
func (*Codec) Format() llm.Format { return llm.FormatChat }

// NewStreamDecoder returns a decoder of an upstream's Chat Completions SSE
// stream.
func (c *Codec) NewStreamDecoder(r io.Reader) llm.StreamDecoder { return newStreamDecoder(c, r) }

// NewStreamEncoder returns an encoder of canonical events as a Chat
// Completions SSE stream without the final usage chunk (see
// NewUsageStreamEncoder).
func (c *Codec) NewStreamEncoder(w io.Writer) llm.StreamEncoder {
	return &StreamEncoder{c: c, w: w}
}

// NewUsageStreamEncoder is NewStreamEncoder for a caller that asked for
// stream_options.include_usage: when includeUsage is set, every chunk
// carries "usage":null and a last chunk with empty choices carries the usage.
func (c *Codec) NewUsageStreamEncoder(w io.Writer, includeUsage bool) *StreamEncoder {
	return &StreamEncoder{c: c, w: w, IncludeUsage: includeUsage}
}

func (c *Codec) id(prefix string) string {
	if c.NewID == nil {
		return RandomID(prefix)
	}
	return c.NewID(prefix)
}

func (c *Codec) now() int64 {
	if c.Now == nil {
		return time.Now().Unix()
	}
	return c.Now().Unix()
}

package openaichat

import "github.com/heddle-gw/heddle/llm/internal/openaierr"

// EncodeError renders an error body in the API's shape:
// {"error":{"message":...,"type":...,"param":null,"code":...}}. kind is an
// Anthropic-style error type (the gateway's lingua franca) or empty, in which
// case status decides; the type and code come from OpenAI's one error table
// (llm/internal/openaierr), which the Responses codec shares.
func (*Codec) EncodeError(status int, kind, message string) []byte {
	return openaierr.Encode(status, kind, message)
}

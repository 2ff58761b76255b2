// Package llm is Heddle's kernel: the canonical request, response and stream-event
// model shared by every wire format, and the codecs that translate between them.
//
// Ring: kernel. It performs no I/O and imports nothing of Heddle's. Codecs for the
// four wire formats live in subpackages (llm/anthropic, llm/openaichat,
// llm/responses, llm/gemini) and are pure functions over bytes.
package llm

// Package anthropic is the codec of the Anthropic Messages wire format
// (POST /v1/messages): requests, responses, SSE streams and error bodies,
// translated to and from the canonical model of package llm.
//
// Ring: kernel. It performs no I/O: every function works on bytes in memory
// or on the io.Reader/io.Writer it is handed, and it imports only llm, llm/sse,
// llm/internal/wirejson, llm/internal/dataurl and internal/jsonw of Heddle's
// packages.
//
// Conventions of the mapping:
//   - A user message's tool_result blocks decode to a canonical RoleTool
//     message (one per run of consecutive results); the other blocks stay in
//     a RoleUser message. Encoding merges consecutive user-side messages and
//     puts tool_result blocks first, as the API requires.
//   - A "system" message inside messages (text only) decodes to a RoleSystem
//     message in place; encoding folds such messages into the system prompt.
//   - Thinking and redacted_thinking blocks decode with Family "anthropic".
//     Encoding a request drops thinking parts of other families and
//     signature-less ones; encoding a response or stream for a caller keeps
//     their text but never hands out another family's signature or opaque data.
//   - A cache mark decodes to Part.CacheControl as its type ("ephemeral"), or
//     "ephemeral;ttl=1h" when a ttl was given, and encodes back the same way.
package anthropic

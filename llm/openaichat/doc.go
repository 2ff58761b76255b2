// Package openaichat is the codec of the OpenAI Chat Completions wire format
// (POST /v1/chat/completions): requests, responses, SSE streams and error
// bodies, translated to and from the canonical model of package llm. It also
// serves OpenAI-compatible upstreams (OpenRouter, DeepSeek, vLLM...): their
// reasoning_content and cache-hit usage fields are read when present.
//
// Ring: kernel. It performs no I/O: every function works on bytes in memory
// or on the io.Reader/io.Writer it is handed, and it imports only llm, llm/sse,
// llm/internal (wirejson, dataurl, openaierr) and internal/jsonw of Heddle's
// packages.
//
// Conventions of the mapping:
//   - system and developer messages go to Request.System in order (the
//     canonical model does not tell them apart); each System part encodes as
//     one system message.
//   - A tool message decodes to a RoleTool message holding one tool_result
//     part. Encoding writes one tool message per tool_result part, wherever
//     the part sits, and moves images of tool results (which tool messages
//     cannot carry) to a user message after the run of tool messages.
//   - Chat Completions has no reasoning input: thinking parts are dropped
//     when encoding. reasoning_effort maps to Request.Thinking.Effort.
//   - Streams sent upstream always ask for usage (stream_options), since
//     Heddle accounts every turn; whether the caller sees the usage chunk is
//     the stream encoder's IncludeUsage.
package openaichat

// Package responses is the codec of the OpenAI Responses wire format
// (POST /v1/responses), as the Codex CLI and the official SDKs speak it:
// requests, complete responses, the typed SSE event stream and the error
// shape, translated to and from Heddle's canonical model.
//
// Ring: kernel. It performs no I/O: every function works on bytes, or on the
// io.Reader and io.Writer it is handed, and it imports only llm, llm/sse and
// llm/internal (wirejson, dataurl, openaierr).
//
// Mapping choices worth knowing:
//   - instructions and system/developer input messages become canonical System
//     parts; encoding joins System into instructions.
//   - function tools map to canonical tools; hosted tools (web_search, custom,
//     local_shell, ...) are dropped from the canonical tools without an error.
//   - a reasoning item becomes a thinking part (its summary text) and, when it
//     carries encrypted_content, a redacted_thinking part with Family "openai".
//     Only Family "openai" reasoning with encrypted content is sent upstream
//     (Heddle always sends store:false, so item ids would not resolve).
//   - usage.input_tokens includes cached tokens; canonical Input excludes them.
package responses

// Package gemini is the codec of the Gemini API's generateContent wire format
// (POST /v1beta/models/{model}:generateContent and :streamGenerateContent with
// alt=sse): requests, responses, SSE streams and the Google error shape,
// translated to and from Heddle's canonical model.
//
// Ring: kernel. It performs no I/O: every function works on bytes, or on the
// io.Reader and io.Writer it is handed, and it imports only llm, llm/sse,
// llm/internal/wirejson and llm/internal/dataurl.
//
// Mapping choices worth knowing:
//   - The model is in the URL: SetModel returns the body unchanged, ModelOf
//     returns "", and the caller sets Request.Model. The stream flag is the
//     URL's method, so the caller sets Request.Stream too.
//   - Requests are read in camelCase and in the snake_case the REST API also
//     accepts (system_instruction, inline_data, generation_config, ...).
//   - Gemini calls carry no ids. Decoding synthesizes stable ones (call_1,
//     call_2, ... in a request; call_<responseId>_<n> in a response) and
//     matches each functionResponse to the oldest unanswered call of its name.
//     Encoding for Gemini sends names only.
//   - Thought parts map to thinking parts with Family "google"; a
//     thoughtSignature on a text or functionCall part is kept in that part's
//     Signature. Encoding for Gemini replays only Google signatures and marks
//     the first call of a foreign model turn with Google's documented
//     skip_thought_signature_validator value, which Gemini 3 requires.
//   - usageMetadata counts thoughts outside candidatesTokenCount; canonical
//     Output is candidates + thoughts, Input excludes cached content.
package gemini

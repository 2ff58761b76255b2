// Package wirejson holds the JSON plumbing the four wire codecs (llm/anthropic,
// llm/openaichat, llm/responses, llm/gemini) share: marshalling without HTML
// escaping, decoding into wire structs with errors that name the JSON path,
// null checks on raw members, and a scanner that reads or rewrites one
// top-level member of a request body (the "model" behind ModelOf and
// SetModel) without decoding the rest.
//
// Ring: kernel. It performs no I/O: every function works on bytes in memory.
// Of Heddle's packages it imports only llm, whose *llm.BadRequestError it
// returns for invalid input. It is internal to llm: the codecs are its only
// callers, and each keeps its own wording where the wording differs (see
// SyntaxReason).
package wirejson

// Package conformance pins the wire-format translation matrix: for every
// ordered pair of the four formats (inbound A, upstream B), a request in A
// encoded for B, a response of B returned to A, and a stream of B re-encoded
// for A, each against a reviewed golden file under testdata and checked
// structurally after decoding the output again.
//
// Ring: kernel, test-only. The package holds no production code; its tests
// use only the llm codecs and read their fixtures and goldens from testdata.
// Regenerate the goldens with `go test ./llm/conformance -update` and review
// the diff against each API's documented shape.
package conformance

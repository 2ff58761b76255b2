// Package conformance pins the wire-format translation matrix: for every
// ordered pair of the four formats (inbound A, upstream B), a request in A
// encoded for B, a response of B returned to A, and a stream of B re-encoded
// for A, each against a reviewed golden file under testdata and checked
// structurally after decoding the output again.
//
// Fixtures live in testdata/fixtures/{request,response,stream}/<format>; the
// goldens are testdata/request/<A>__<B>.json (A's request encoded for B),
// testdata/response/<B>__<A>.json and testdata/stream/<B>__<A>.sse (B's
// answer re-encoded for A). Where a format has no field for a count, the
// caller sees the nearest truth: cache-write tokens count as input outside
// Anthropic, and Anthropic shows no reasoning count. Gemini streams a
// function call whole, so its stream fixture has no argument deltas.
//
// Ring: kernel, test-only. The package holds no production code; its tests
// use only the llm codecs and read their fixtures and goldens from testdata.
// Regenerate the goldens with `go test ./llm/conformance -update` and review
// the diff against each API's documented shape.
package conformance

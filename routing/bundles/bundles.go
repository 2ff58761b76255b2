// Package bundles holds the routing bundle shipped in the binary and the
// corpus it is trained from (see corpus/SOURCES.md): prompts labelled with
// their task type, approximate per-task quality of each default-catalog model
// from published benchmark results, typical token counts per task type, and
// the training configuration.
//
// Ring: domain data. It imports nothing; routing reads these bytes.
package bundles

import "embed"

// DefaultJSON is the default bundle (routing.LoadBundle reads it).
//
//go:embed default.json
var DefaultJSON []byte

// Corpus holds corpus/*: config.json, prompts.tsv, quality.tsv,
// tokens.tsv, SOURCES.md.
//
//go:embed corpus
var Corpus embed.FS

package llm

// UsageIncluder is an optional ability of a StreamEncoder, found by type
// assertion: a format whose streams carry usage only on request (OpenAI
// Chat's stream_options.include_usage) lets the caller say whether the
// client asked for it. Call it before the first Encode. Encoders of formats
// that always report usage do not implement it.
type UsageIncluder interface {
	SetIncludeUsage(on bool)
}

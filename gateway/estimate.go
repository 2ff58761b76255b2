package gateway

import "github.com/heddle-gw/heddle/llm"

// EstimateTokens approximates a request's input tokens at four bytes of text
// per token, plus llm.MediaTokens per image or document (a PDF by its
// pages) and a fixed cost per message. It is an estimate and is reported as
// one.
func EstimateTokens(r *llm.Request) int {
	bytes := 0
	count := func(ps []llm.Part) {}
	count = func(ps []llm.Part) {
		for _, p := range ps {
			bytes += len(p.Text) + len(p.Arguments) + len(p.Name)
			bytes += 4 * llm.MediaTokens(p)
			count(p.Result)
		}
	}
	count(r.System)
	for _, m := range r.Messages {
		bytes += 16
		count(m.Content)
	}
	for _, t := range r.Tools {
		bytes += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	return (bytes + 3) / 4
}

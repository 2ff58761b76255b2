package gateway

import "github.com/heddle-gw/heddle/llm"

// EstimateTokens approximates a request's input tokens at four bytes of text
// per token, plus a fixed cost per image and per message. It is an estimate
// and is reported as one.
func EstimateTokens(r *llm.Request) int {
	bytes := 0
	count := func(ps []llm.Part) {}
	count = func(ps []llm.Part) {
		for _, p := range ps {
			bytes += len(p.Text) + len(p.Arguments) + len(p.Name)
			if p.Type == llm.PartImage || p.Type == llm.PartDocument {
				bytes += 4 * 1600
			}
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

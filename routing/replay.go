package routing

import "github.com/heddle-gw/heddle/llm"

// ReplayEvents turns a complete response into the canonical event sequence a
// live stream of it would have produced, so a cached answer can be served to
// a streaming caller through its codec's stream encoder: message_start (id,
// model, input-side usage), then per content part block_start, its deltas
// (text; reasoning text then signature; tool-call arguments) and
// block_stop, then message_delta (stop reason, stop sequence, full usage)
// and done. A nil response yields nil.
func ReplayEvents(resp *llm.Response) []llm.Event {
	if resp == nil {
		return nil
	}
	start := llm.Usage{Input: resp.Usage.Input, CacheRead: resp.Usage.CacheRead, CacheWrite: resp.Usage.CacheWrite}
	evs := make([]llm.Event, 0, 3+3*len(resp.Content))
	evs = append(evs, llm.Event{Type: llm.EventMessageStart, ID: resp.ID, Model: resp.Model, Usage: &start})
	for i, p := range resp.Content {
		block := llm.Part{Type: p.Type, ID: p.ID, Name: p.Name, Family: p.Family}
		if p.Type == llm.PartRedactedThinking {
			block.Data = p.Data
		}
		evs = append(evs, llm.Event{Type: llm.EventBlockStart, Index: i, Block: &block})
		switch p.Type {
		case llm.PartText:
			if p.Text != "" {
				evs = append(evs, llm.Event{Type: llm.EventTextDelta, Index: i, Text: p.Text})
			}
		case llm.PartThinking:
			if p.Text != "" {
				evs = append(evs, llm.Event{Type: llm.EventThinkDelta, Index: i, Text: p.Text})
			}
			if p.Signature != "" {
				evs = append(evs, llm.Event{Type: llm.EventThinkDelta, Index: i, Signature: p.Signature})
			}
		case llm.PartToolCall:
			if p.Arguments != "" {
				evs = append(evs, llm.Event{Type: llm.EventToolDelta, Index: i, Text: p.Arguments})
			}
		}
		evs = append(evs, llm.Event{Type: llm.EventBlockStop, Index: i})
	}
	usage := resp.Usage
	evs = append(evs,
		llm.Event{Type: llm.EventMessageDelta, StopReason: resp.StopReason, StopSequence: resp.StopSequence, Usage: &usage},
		llm.Event{Type: llm.EventDone})
	return evs
}

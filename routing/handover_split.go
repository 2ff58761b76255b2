package routing

import (
	"strings"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/llm"
)

// HandoverSplit is where Handover would cut a history, computed without
// calling the summarizer, so the planner can price a handover first.
type HandoverSplit struct {
	// Long says the history is over a threshold (messages or tokens).
	Long bool
	// Cut is the index of the first kept message; Messages[:Cut] are older.
	Cut int
	// OlderMessages counts the older messages that would be summarised
	// (system and developer messages excluded: they are kept).
	OlderMessages int
	// OlderTokens and KeptTokens are estimates (about 4 bytes a token).
	OlderTokens int
	KeptTokens  int
}

// HandoverSplitOf returns where Handover would cut req under cfg. The cut
// starts at the cfg.KeepTurns-th last turn (a turn starts at a user message
// with user-authored content: text other than <system-reminder> blocks, an
// image or a document) and moves back while a kept tool result answers a
// call made before it.
func HandoverSplitOf(req *llm.Request, cfg HandoverConfig) HandoverSplit {
	cfg = cfg.withDefaults()
	if req == nil {
		return HandoverSplit{}
	}
	msgs := req.Messages
	var starts []int
	for i, m := range msgs {
		if m.Role == llm.RoleUser && authoredContent(m.Content) {
			starts = append(starts, i)
		}
	}
	cut := 0
	if len(starts) > cfg.KeepTurns {
		cut = starts[len(starts)-cfg.KeepTurns]
	}
	cut = keepToolPairs(msgs, cut)
	sp := HandoverSplit{Cut: cut, OlderTokens: estimateTokens(msgs[:cut]), KeptTokens: estimateTokens(msgs[cut:])}
	for _, m := range msgs[:cut] {
		if m.Role != llm.RoleSystem && m.Role != llm.RoleDeveloper {
			sp.OlderMessages++
		}
	}
	sp.Long = len(msgs) > cfg.MinMessages || sp.OlderTokens+sp.KeptTokens > cfg.MinTokens
	return sp
}

// HandoverCost estimates the cost in USD of summarising a split's older
// messages with a summarizer model of the given price writing summaryTokens
// (the request's transcript costs about the older tokens at input price).
func HandoverCost(sp HandoverSplit, summarizer catalog.Price, summaryTokens int) float64 {
	if sp.OlderMessages == 0 {
		return 0
	}
	return (float64(sp.OlderTokens)*summarizer.Input + float64(summaryTokens)*summarizer.Output) / 1e6
}

// keepToolPairs moves cut back until no message from cut on holds a tool
// result whose call was made before cut.
func keepToolPairs(msgs []llm.Message, cut int) int {
	callAt := make(map[string]int)
	for i, m := range msgs {
		for _, p := range m.Content {
			if p.Type == llm.PartToolCall && p.ID != "" {
				if _, seen := callAt[p.ID]; !seen {
					callAt[p.ID] = i
				}
			}
		}
	}
	for {
		moved := cut
		for _, m := range msgs[cut:] {
			for _, p := range m.Content {
				if p.Type != llm.PartToolResult {
					continue
				}
				if at, ok := callAt[p.ID]; ok && at < moved {
					moved = at
				}
			}
		}
		if moved == cut {
			return cut
		}
		cut = moved
	}
}

// authoredContent reports whether content holds something a user wrote.
func authoredContent(content []llm.Part) bool {
	for _, p := range content {
		switch p.Type {
		case llm.PartText:
			if strings.TrimSpace(stripReminders(p.Text)) != "" {
				return true
			}
		case llm.PartImage, llm.PartDocument:
			return true
		}
	}
	return false
}

// imageTokens is the estimate for one image or document part.
const imageTokens = 1500

// estimateTokens is a rough prompt size: about 4 bytes a token for text,
// arguments and results, a flat imageTokens per image or document.
func estimateTokens(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += 4 + partBytesEstimate(m.Content)
	}
	return n / 4
}

func partBytesEstimate(ps []llm.Part) int {
	n := 0
	for _, p := range ps {
		switch p.Type {
		case llm.PartImage, llm.PartDocument:
			n += 4 * imageTokens
		default:
			n += len(p.Text) + len(p.Arguments) + len(p.Name) + partBytesEstimate(p.Result)
		}
	}
	return n
}

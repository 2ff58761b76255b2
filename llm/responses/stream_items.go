package responses

import (
	"encoding/json"

	"github.com/heddle-gw/heddle/llm"
)

// itemAdded starts the block of a function_call item; message and reasoning
// blocks start with their first part or delta.
func (d *streamDecoder) itemAdded(ev *wireEvent) {
	it := ev.Item
	if it != nil {
		d.itemIDs[ev.OutputIndex] = it.ID
	}
	if it == nil || it.Type != "function_call" {
		d.start(nil)
		return
	}
	d.sawTool = true
	k := blockKey{ev.OutputIndex, -1}
	d.block(k, &llm.Part{Type: llm.PartToolCall, ID: it.CallID, Name: it.Name})
	var args string
	if json.Unmarshal(it.Arguments, &args) == nil {
		d.delta(k, llm.PartToolCall, args)
	}
}

// itemDone closes an item's blocks, first emitting whatever the item holds
// that no delta carried: a message's text, a call's arguments, a reasoning
// summary, and a reasoning item's encrypted content as a redacted block.
func (d *streamDecoder) itemDone(ev *wireEvent) {
	it := ev.Item
	if it == nil {
		d.stopAll(ev.OutputIndex)
		return
	}
	switch it.Type {
	case "message":
		if !d.hasBlocks(ev.OutputIndex) {
			var parts []wirePart
			if json.Unmarshal(it.Content, &parts) == nil {
				for ci, p := range parts {
					text := p.Text
					if p.Type == "refusal" {
						text, d.refused = p.Refusal, true
					}
					k := blockKey{ev.OutputIndex, ci}
					d.block(k, &llm.Part{Type: llm.PartText})
					d.delta(k, llm.PartText, text)
					d.stop(k)
				}
			}
		}
	case "function_call":
		d.sawTool = true
		k := blockKey{ev.OutputIndex, -1}
		if d.open[k] == nil {
			d.block(k, &llm.Part{Type: llm.PartToolCall, ID: it.CallID, Name: it.Name})
		}
		var args string
		if json.Unmarshal(it.Arguments, &args) == nil {
			d.fill(k, llm.PartToolCall, args)
		}
	case "reasoning":
		d.reasoningDone(ev.OutputIndex, it)
		return
	}
	d.stopAll(ev.OutputIndex)
}

// reasoningDone closes a reasoning item's thinking block (emitting its
// summary if nothing streamed) and emits its encrypted content.
func (d *streamDecoder) reasoningDone(output int, it *wireItem) {
	k := blockKey{output, -1}
	if d.open[k] == nil {
		for _, p := range reasoningParts(it) {
			if p.Type == llm.PartThinking {
				d.block(k, &llm.Part{Type: llm.PartThinking, ID: it.ID, Family: family})
				d.delta(k, llm.PartThinking, p.Text)
			}
		}
	}
	d.stopAll(output)
	if it.EncryptedContent != nil && *it.EncryptedContent != "" {
		rk := blockKey{output, -2}
		d.block(rk, &llm.Part{Type: llm.PartRedactedThinking, Data: *it.EncryptedContent, ID: it.ID, Family: family})
		d.stop(rk)
	}
}

// hasBlocks reports whether any block of an output item was ever started.
func (d *streamDecoder) hasBlocks(output int) bool {
	for k := range d.open {
		if k.output == output {
			return true
		}
	}
	return d.seen[output]
}

// complete ends the message with its stop reason and usage.
func (d *streamDecoder) complete(r *wireResponse) {
	d.start(r)
	d.stopAll(-1)
	e := llm.Event{Type: llm.EventMessageDelta, StopReason: llm.StopEnd}
	if r != nil {
		reason := ""
		if r.IncompleteDetails != nil {
			reason = r.IncompleteDetails.Reason
		}
		sawTool := d.sawTool
		for _, raw := range r.Output {
			var it struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(raw, &it) == nil && it.Type == "function_call" {
				sawTool = true
			}
		}
		e.StopReason = stopOf(r.Status, reason, sawTool, d.refused)
		u := usageOf(r.Usage)
		e.Usage = &u
	} else if d.sawTool {
		e.StopReason = llm.StopToolUse
	}
	d.emit(e)
	d.emit(llm.Event{Type: llm.EventDone})
	d.finished = true
}

// fail ends the stream with an error event.
func (d *streamDecoder) fail(msg, code string) {
	if msg == "" {
		msg = "the upstream stream failed"
	}
	d.emit(llm.Event{Type: llm.EventError, ErrMessage: msg, ErrCode: code})
	d.finished = true
}

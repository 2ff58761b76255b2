package responses

import (
	"encoding/json"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// DecodeResponse parses a Responses response object.
func (*Codec) DecodeResponse(body []byte) (*llm.Response, error) {
	if wirejson.FirstByte(body) != '{' {
		return nil, badRequest("", "body must be a JSON object")
	}
	var w wireResponse
	if err := unmarshal(body, &w, ""); err != nil {
		return nil, err
	}
	resp := &llm.Response{ID: w.ID, Model: w.Model, Created: int64(w.CreatedAt), Usage: usageOf(w.Usage)}
	var sawTool, refused bool
	for i, raw := range w.Output {
		path := wirejson.Index("output", i)
		if wirejson.FirstByte(raw) != '{' {
			return nil, badRequest(path, "expected an object")
		}
		var it wireItem
		if err := unmarshal(raw, &it, path); err != nil {
			return nil, err
		}
		switch it.Type {
		case "message":
			parts, refusal, err := outputContent(it.Content, path+".content")
			if err != nil {
				return nil, err
			}
			resp.Content = append(resp.Content, parts...)
			refused = refused || refusal
		case "function_call":
			p, err := decodeCall(&it, path)
			if err != nil {
				return nil, err
			}
			resp.Content = append(resp.Content, p)
			sawTool = true
		case "reasoning":
			resp.Content = append(resp.Content, reasoningParts(&it)...)
		}
	}
	reason := ""
	if w.IncompleteDetails != nil {
		reason = w.IncompleteDetails.Reason
	}
	resp.StopReason = stopOf(w.Status, reason, sawTool, refused)
	return resp, nil
}

// outputContent reads an output message's parts; refusal reports whether
// one of them was a refusal.
func outputContent(raw json.RawMessage, path string) (parts []llm.Part, refusal bool, err error) {
	if wirejson.IsNull(raw) {
		return nil, false, nil
	}
	var ws []wirePart
	if err := unmarshal(raw, &ws, path); err != nil {
		return nil, false, err
	}
	for _, w := range ws {
		switch w.Type {
		case "output_text", "text":
			parts = append(parts, llm.Part{Type: llm.PartText, Text: w.Text})
		case "refusal":
			parts = append(parts, llm.Part{Type: llm.PartText, Text: w.Refusal})
			refusal = true
		}
	}
	return parts, refusal, nil
}

// stopOf derives the canonical stop reason from a response's status.
func stopOf(status, incompleteReason string, sawTool, refused bool) llm.StopReason {
	switch status {
	case "incomplete":
		if incompleteReason == "content_filter" {
			return llm.StopRefusal
		}
		return llm.StopMaxTokens
	case "failed", "cancelled":
		return llm.StopError
	}
	switch {
	case refused:
		return llm.StopRefusal
	case sawTool:
		return llm.StopToolUse
	}
	return llm.StopEnd
}

// usageOf converts Responses usage (input includes cached tokens).
func usageOf(u *wireUsage) llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	out := llm.Usage{Input: u.InputTokens, Output: u.OutputTokens}
	if u.InputTokensDetails != nil {
		out.CacheRead = min(max(u.InputTokensDetails.CachedTokens, 0), max(u.InputTokens, 0))
		out.Input -= out.CacheRead
	}
	if u.OutputTokensDetails != nil {
		out.Reasoning = u.OutputTokensDetails.ReasoningTokens
	}
	return out
}

// encodeUsage converts canonical usage to Responses usage.
func encodeUsage(u llm.Usage) *outUsage {
	in := u.Input + u.CacheRead + u.CacheWrite
	return &outUsage{
		InputTokens:         in,
		InputTokensDetails:  outInputDetail{CachedTokens: u.CacheRead},
		OutputTokens:        u.Output,
		OutputTokensDetails: outOutputDetail{ReasoningTokens: u.Reasoning},
		TotalTokens:         in + u.Output,
	}
}

// statusOf maps a canonical stop reason to a response status.
func statusOf(stop llm.StopReason) (string, *outIncomplete, *outError) {
	switch stop {
	case llm.StopMaxTokens:
		return "incomplete", &outIncomplete{Reason: "max_output_tokens"}, nil
	case llm.StopRefusal:
		return "incomplete", &outIncomplete{Reason: "content_filter"}, nil
	case llm.StopError:
		return "failed", nil, &outError{Code: "server_error", Message: "the upstream model failed"}
	}
	return "completed", nil, nil
}

// EncodeResponse renders r as a Responses response object.
func (*Codec) EncodeResponse(r *llm.Response) ([]byte, error) {
	ids := newIDs(r.ID)
	out := outResponse{
		ID: ids.response(), Object: "response", CreatedAt: r.Created, Model: r.Model,
		Output: outputItems(r.Content, ids), Usage: encodeUsage(r.Usage),
	}
	out.Status, out.IncompleteDetails, out.Error = statusOf(r.StopReason)
	return wirejson.Marshal(out)
}

// outputItems renders response content as output items: a run of text parts
// is one message, a tool call one function_call item, and thinking (of any
// family, shown as its summary) one reasoning item that also carries the
// encrypted content of an OpenAI redacted part right after it.
func outputItems(parts []llm.Part, ids idGen) []any {
	items := []any{}
	var text []any
	flush := func() {
		if len(text) > 0 {
			items = append(items, messageItem(ids.item("msg", len(items)), "completed", text))
			text = nil
		}
	}
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		switch p.Type {
		case llm.PartText:
			text = append(text, outputText(p.Text))
		case llm.PartToolCall:
			flush()
			items = append(items, callItem(ids.item("fc", len(items)), "completed", callID(p.ID, ids, len(items)), p.Name, p.Arguments))
		case llm.PartThinking, llm.PartRedactedThinking:
			it, used := reasoningItem(parts[i:], ids, len(items))
			i += used - 1
			if it == nil {
				continue
			}
			flush()
			items = append(items, *it)
		}
	}
	flush()
	return items
}

// reasoningItem builds one reasoning item from the thinking part at parts[0]
// (and an OpenAI redacted part right after it). used counts the parts taken;
// the item is nil when nothing in them can be shown or replayed.
func reasoningItem(parts []llm.Part, ids idGen, n int) (it *outReasoningItem, used int) {
	p := parts[0]
	item := outReasoningItem{Type: "reasoning", Summary: []outSummary{}}
	used = 1
	if p.Type == llm.PartThinking {
		if p.Text != "" {
			item.Summary = []outSummary{{Type: "summary_text", Text: p.Text}}
		}
		if len(parts) > 1 && parts[1].Type == llm.PartRedactedThinking && parts[1].Family == family {
			p = parts[1]
			used = 2
		}
	}
	if p.Type == llm.PartRedactedThinking && p.Family == family {
		item.EncryptedContent = p.Data
	}
	if len(item.Summary) == 0 && item.EncryptedContent == "" {
		return nil, used
	}
	item.ID = reasoningID(p.ID, ids, n)
	return &item, used
}

// messageItem renders an assistant output message.
func messageItem(id, status string, content []any) outMessage {
	if content == nil {
		content = []any{}
	}
	return outMessage{Type: "message", ID: id, Status: status, Role: "assistant", Content: content}
}

// outputText renders an output_text content part.
func outputText(text string) outOutputText {
	return outOutputText{Type: "output_text", Text: text, Annotations: []any{}}
}

// callItem renders a function_call output item.
func callItem(id, status, callID, name, args string) outCall {
	return outCall{Type: "function_call", ID: id, Status: status, CallID: callID, Name: name, Arguments: args}
}

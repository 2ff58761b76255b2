package gemini

import (
	"encoding/json"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// DecodeResponse parses a GenerateContentResponse (its first candidate).
func (*Codec) DecodeResponse(body []byte) (*llm.Response, error) {
	if wirejson.FirstByte(body) != '{' {
		return nil, badRequest("", "body must be a JSON object")
	}
	var w wireResponse
	if err := unmarshal(body, &w, ""); err != nil {
		return nil, err
	}
	resp := &llm.Response{ID: w.ResponseID, Model: w.ModelVersion, Usage: usageOf(w.UsageMetadata)}
	if len(w.Candidates) == 0 {
		resp.StopReason = llm.StopEnd
		if w.PromptFeedback != nil && w.PromptFeedback.BlockReason != "" {
			resp.StopReason = llm.StopRefusal
		}
		return resp, nil
	}
	cand := w.Candidates[0]
	ids := responseCallIDs(w.ResponseID)
	sawCall := false
	if cand.Content != nil {
		for j, raw := range cand.Content.Parts {
			p, ok, err := decodePart(raw, wirejson.Index("candidates[0].content.parts", j), ids)
			if err != nil {
				return nil, err
			}
			if !ok || p.Type == llm.PartToolResult {
				continue
			}
			sawCall = sawCall || p.Type == llm.PartToolCall
			resp.Content = append(resp.Content, p)
		}
	}
	resp.StopReason = stopOf(cand.FinishReason, sawCall)
	return resp, nil
}

// stopOf maps a finishReason; STOP with function calls is tool use.
func stopOf(reason string, sawCall bool) llm.StopReason {
	switch reason {
	case "MAX_TOKENS":
		return llm.StopMaxTokens
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		return llm.StopRefusal
	case "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS", "OTHER", "LANGUAGE", "NO_IMAGE", "IMAGE_OTHER":
		return llm.StopError
	}
	if sawCall {
		return llm.StopToolUse
	}
	return llm.StopEnd
}

// finishReason maps a canonical stop reason to Gemini's.
func finishReason(stop llm.StopReason) string {
	switch stop {
	case llm.StopMaxTokens:
		return "MAX_TOKENS"
	case llm.StopRefusal:
		return "SAFETY"
	case llm.StopError:
		return "OTHER"
	}
	return "STOP"
}

// usageOf converts usageMetadata: prompt counts include cached content, and
// thoughts are counted outside candidates.
func usageOf(u *wireUsage) llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	prompt := u.PromptTokenCount + u.ToolUsePromptTokenCount
	cached := min(max(u.CachedContentTokenCount, 0), max(prompt, 0))
	return llm.Usage{
		Input:     prompt - cached,
		CacheRead: cached,
		Output:    u.CandidatesTokenCount + u.ThoughtsTokenCount,
		Reasoning: u.ThoughtsTokenCount,
	}
}

// encodeUsage converts canonical usage to usageMetadata.
func encodeUsage(u llm.Usage) *outUsage {
	prompt := u.Input + u.CacheRead + u.CacheWrite
	thoughts := min(max(u.Reasoning, 0), max(u.Output, 0))
	return &outUsage{
		PromptTokenCount:        prompt,
		CandidatesTokenCount:    u.Output - thoughts,
		TotalTokenCount:         prompt + u.Output,
		CachedContentTokenCount: u.CacheRead,
		ThoughtsTokenCount:      thoughts,
	}
}

// EncodeResponse renders r as a GenerateContentResponse with one candidate.
// Tool calls keep their canonical ids, which Gemini clients echo back.
func (*Codec) EncodeResponse(r *llm.Response) ([]byte, error) {
	parts := []outPart{}
	for _, p := range r.Content {
		if part, ok := responsePart(p); ok {
			parts = append(parts, part)
		}
	}
	out := outResponse{
		Candidates:    []outCandidate{{Content: outContent{Role: "model", Parts: parts}, FinishReason: finishReason(r.StopReason)}},
		UsageMetadata: encodeUsage(r.Usage),
		ModelVersion:  r.Model,
		ResponseID:    r.ID,
	}
	return wirejson.Marshal(out)
}

// responsePart renders one part of an answer for a Gemini caller: thinking of
// any family as a thought (a signature only when Google's), text, and calls.
func responsePart(p llm.Part) (outPart, bool) {
	sig := ""
	if p.Family == family {
		sig = p.Signature
	}
	switch p.Type {
	case llm.PartText:
		if p.Text == "" && sig == "" {
			return outPart{}, false
		}
		return outPart{Text: strp(p.Text), ThoughtSignature: sig}, true
	case llm.PartThinking:
		if p.Text == "" && sig == "" {
			return outPart{}, false
		}
		return outPart{Text: strp(p.Text), Thought: true, ThoughtSignature: sig}, true
	case llm.PartToolCall:
		if p.Name == "" {
			return outPart{}, false
		}
		args, err := argsObject(p.Arguments)
		if err != nil {
			args = json.RawMessage("{}")
		}
		return outPart{FunctionCall: &outCall{ID: p.ID, Name: p.Name, Args: args}, ThoughtSignature: sig}, true
	case llm.PartImage, llm.PartDocument:
		return mediaPart(p)
	}
	return outPart{}, false
}

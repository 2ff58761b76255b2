package openaichat

import "github.com/heddle-gw/heddle/llm/internal/wirejson"

// fastResponse reads a Chat Completions response in one pass with
// wirejson.Reader, reading every member of inResponse's shape as
// encoding/json would (null leaves a value zero, a repeated member or any
// value of another kind gives up). ok is false when it gave up; the caller
// then decodes with encoding/json, which gives the same answer or the
// error. Content that is an array of parts is left to that path too.
func fastResponse(body []byte) (d decodedResponse, ok bool) {
	r := wirejson.NewReader(body)
	var seen uint
	var choice inChoice
	for key := range r.Members {
		switch string(key) {
		case "id":
			once(r, &seen, 1)
			d.id = r.String()
		case "created":
			once(r, &seen, 2)
			d.created = r.Int()
		case "model":
			once(r, &seen, 4)
			d.model = r.String()
		case "choices":
			once(r, &seen, 8)
			d.choice = nil
			if r.Null() {
				break
			}
			for range r.Elements {
				if d.choice == nil {
					d.choice = &choice
					d.text = fastChoice(r, &choice)
				} else {
					var later inChoice // read for its errors only
					fastChoice(r, &later)
				}
			}
		case "usage":
			once(r, &seen, 16)
			d.usage = fastUsage(r)
		default:
			r.Skip()
		}
	}
	if !r.End() {
		return decodedResponse{}, false
	}
	return d, true
}

// once fails r when bit is already in seen: encoding/json merges a repeated
// object member into the first, which the fast path does not copy.
func once(r *wirejson.Reader, seen *uint, bit uint) {
	if *seen&bit != 0 {
		r.Fail()
	}
	*seen |= bit
}

// readInt reads an int member, failing r when it does not fit an int.
func readInt(r *wirejson.Reader) int {
	v := r.Int()
	if int64(int(v)) != v {
		r.Fail()
	}
	return int(v)
}

// fastChoice reads one element of choices into ch and returns the text of
// its message's content.
func fastChoice(r *wirejson.Reader, ch *inChoice) (text string) {
	if r.Null() {
		return ""
	}
	var seen uint
	for key := range r.Members {
		switch string(key) {
		case "message":
			once(r, &seen, 1)
			if !r.Null() {
				text = fastMessage(r, &ch.Message)
			}
		case "finish_reason":
			once(r, &seen, 2)
			ch.FinishReason = r.StringPtr()
		default:
			r.Skip()
		}
	}
	return text
}

func fastMessage(r *wirejson.Reader, m *inRespMessage) (text string) {
	var seen uint
	for key := range r.Members {
		switch string(key) {
		case "content":
			once(r, &seen, 1)
			if !r.Null() {
				if !r.IsString() {
					r.Fail() // parts, or an error: encoding/json's to answer
				}
				text = r.String()
			}
		case "refusal":
			once(r, &seen, 2)
			m.Refusal = r.StringPtr()
		case "tool_calls":
			once(r, &seen, 4)
			if r.Null() {
				break
			}
			for range r.Elements {
				m.ToolCalls = append(m.ToolCalls, inToolCall{})
				fastToolCall(r, &m.ToolCalls[len(m.ToolCalls)-1])
			}
		case "reasoning_content":
			once(r, &seen, 8)
			m.ReasoningContent = r.StringPtr()
		case "reasoning":
			once(r, &seen, 16)
			m.Reasoning = r.StringPtr()
		default:
			r.Skip()
		}
	}
	return text
}

func fastToolCall(r *wirejson.Reader, tc *inToolCall) {
	if r.Null() {
		return
	}
	var seen uint
	for key := range r.Members {
		switch string(key) {
		case "id":
			once(r, &seen, 1)
			tc.ID = r.String()
		case "type":
			once(r, &seen, 2)
			tc.Type = r.String()
		case "function":
			once(r, &seen, 4)
			fastFunction(r, &tc.Function)
		default:
			r.Skip()
		}
	}
}

func fastUsage(r *wirejson.Reader) *wireUsage {
	if r.Null() {
		return nil
	}
	u := &wireUsage{}
	var seen uint
	for key := range r.Members {
		switch string(key) {
		case "prompt_tokens":
			once(r, &seen, 1)
			u.PromptTokens = readInt(r)
		case "completion_tokens":
			once(r, &seen, 2)
			u.CompletionTokens = readInt(r)
		case "total_tokens":
			once(r, &seen, 4)
			u.TotalTokens = readInt(r)
		case "prompt_tokens_details":
			once(r, &seen, 8)
			if r.Null() {
				break
			}
			u.PromptTokensDetails = &promptDetails{}
			var dseen uint
			for key := range r.Members {
				switch string(key) {
				case "cached_tokens":
					once(r, &dseen, 1)
					u.PromptTokensDetails.CachedTokens = readInt(r)
				case "audio_tokens":
					once(r, &dseen, 2)
					u.PromptTokensDetails.AudioTokens = readInt(r)
				default:
					r.Skip()
				}
			}
		case "completion_tokens_details":
			once(r, &seen, 16)
			if r.Null() {
				break
			}
			cd := &completionDetails{}
			u.CompletionTokensDetails = cd
			var dseen uint
			for key := range r.Members {
				switch string(key) {
				case "reasoning_tokens":
					once(r, &dseen, 1)
					cd.ReasoningTokens = readInt(r)
				case "audio_tokens":
					once(r, &dseen, 2)
					cd.AudioTokens = readInt(r)
				case "accepted_prediction_tokens":
					once(r, &dseen, 4)
					cd.AcceptedPredictionTokens = readInt(r)
				case "rejected_prediction_tokens":
					once(r, &dseen, 8)
					cd.RejectedPredictionTokens = readInt(r)
				default:
					r.Skip()
				}
			}
		case "prompt_cache_hit_tokens":
			once(r, &seen, 32)
			if r.Null() {
				u.PromptCacheHitTokens = nil
				break
			}
			v := readInt(r)
			u.PromptCacheHitTokens = &v
		default:
			r.Skip()
		}
	}
	return u
}

// fastFunction reads a tool call's function object as encoding/json fills
// a zero inFunction (null leaves it zero, a repeated member gives up).
func fastFunction(r *wirejson.Reader, f *inFunction) {
	if r.Null() {
		return
	}
	var seen uint
	for key := range r.Members {
		switch string(key) {
		case "name":
			once(r, &seen, 1)
			f.Name = r.String()
		case "arguments":
			once(r, &seen, 2)
			f.Arguments = r.String()
		default:
			r.Skip()
		}
	}
}

package openaichat

import "github.com/heddle-gw/heddle/llm/internal/wirejson"

// chunkReader reads stream chunks in one pass with wirejson.Reader,
// reusing its memory from one chunk to the next: the Reader, the choices
// and the strings the *string members point to.
type chunkReader struct {
	r       wirejson.Reader
	choices []inChunkChoice
	strs    []string
}

// read fills ch, which must be zero, from data as encoding/json fills a
// zero inChunk (null leaves a member zero, a repeated member or a value of
// another kind gives up), and reports whether it did; when it gave up the
// caller decodes with encoding/json, which gives the same answer or the
// error. A chunk carrying an error object is left to that path too. With
// ids false the id and model are checked but not kept (ch.ID and ch.Model
// stay empty): the decoder reads them from the first chunk only. What ch
// holds is valid until the next read.
func (c *chunkReader) read(data []byte, ch *inChunk, ids bool) bool {
	r := &c.r
	r.Reset(data)
	c.strs = c.strs[:0]
	var seen uint
	for key := range r.Members {
		switch string(key) {
		case "id":
			once(r, &seen, 1)
			if ids {
				ch.ID = r.String()
			} else {
				r.SkipString()
			}
		case "model":
			once(r, &seen, 2)
			if ids {
				ch.Model = r.String()
			} else {
				r.SkipString()
			}
		case "choices":
			once(r, &seen, 4)
			if r.Null() {
				break
			}
			if c.choices == nil {
				c.choices = make([]inChunkChoice, 0, 1)
			}
			ch.Choices = c.choices[:0]
			for range r.Elements {
				ch.Choices = append(ch.Choices, inChunkChoice{})
				c.choice(&ch.Choices[len(ch.Choices)-1])
			}
			c.choices = ch.Choices
		case "usage":
			once(r, &seen, 8)
			ch.Usage = fastUsage(r)
		case "error":
			once(r, &seen, 16)
			if !r.Null() {
				r.Fail()
			}
		default:
			r.Skip()
		}
	}
	return r.End()
}

// str returns a pointer to a copy of s that stays valid until the next
// read.
func (c *chunkReader) str(s string) *string {
	if len(c.strs) == cap(c.strs) {
		// A new block: pointers into the old one stay valid.
		c.strs = make([]string, 0, max(8, 2*cap(c.strs)))
	}
	c.strs = append(c.strs, s)
	return &c.strs[len(c.strs)-1]
}

// strPtr reads a string as a *string, null as nil.
func (c *chunkReader) strPtr() *string {
	r := &c.r
	if r.Null() {
		return nil
	}
	return c.str(r.String())
}

func (c *chunkReader) choice(ch *inChunkChoice) {
	r := &c.r
	if r.Null() {
		return
	}
	var seen uint
	for key := range r.Members {
		switch string(key) {
		case "index":
			once(r, &seen, 1)
			ch.Index = readInt(r)
		case "delta":
			once(r, &seen, 2)
			if !r.Null() {
				c.delta(&ch.Delta)
			}
		case "finish_reason":
			once(r, &seen, 4)
			ch.FinishReason = c.strPtr()
		default:
			r.Skip()
		}
	}
}

func (c *chunkReader) delta(d *inChunkDelta) {
	r := &c.r
	var seen uint
	for key := range r.Members {
		switch string(key) {
		case "content":
			once(r, &seen, 1)
			d.Content = c.strPtr()
		case "refusal":
			once(r, &seen, 2)
			d.Refusal = c.strPtr()
		case "reasoning_content":
			once(r, &seen, 4)
			d.ReasoningContent = c.strPtr()
		case "reasoning":
			once(r, &seen, 8)
			d.Reasoning = c.strPtr()
		case "tool_calls":
			once(r, &seen, 16)
			if r.Null() {
				break
			}
			d.ToolCalls = []inChunkToolCall{} // [] decodes as empty, not nil
			for range r.Elements {
				d.ToolCalls = append(d.ToolCalls, inChunkToolCall{})
				chunkToolCall(r, &d.ToolCalls[len(d.ToolCalls)-1])
			}
		default:
			r.Skip()
		}
	}
}

func chunkToolCall(r *wirejson.Reader, tc *inChunkToolCall) {
	if r.Null() {
		return
	}
	var seen uint
	for key := range r.Members {
		switch string(key) {
		case "index":
			once(r, &seen, 1)
			tc.Index = readInt(r)
		case "id":
			once(r, &seen, 2)
			tc.ID = r.String()
		case "function":
			once(r, &seen, 4)
			fastFunction(r, &tc.Function)
		default:
			r.Skip()
		}
	}
}

package openaichat

import "github.com/heddle-gw/heddle/llm/internal/wirejson"

// fastRequest reads a Chat Completions request in one pass with
// wirejson.Reader: every member of inRequest's shape, and the polymorphic
// ones (messages with their content and tool calls, stop, tools,
// tool_choice) as the decoding steps would read them, the way encoding/json
// reads them (null leaves a value zero or a pointer nil; a repeated member,
// a key encoding/json might fold, or a value of another kind gives up). ok
// is false when it gave up; DecodeRequest then decodes with encoding/json,
// which gives the same answer or the error. A message's tool_calls and
// content are read whatever its role, so that the fast path only takes a
// body every step would decode without error.
func fastRequest(body []byte) (in inRequest, model string, ok bool) {
	r := wirejson.NewReader(body)
	in.fast = true
	var seen uint
	for key := range r.Members {
		switch string(key) {
		case "model":
			once(r, &seen, 1<<0)
			model = r.String()
		case "messages":
			once(r, &seen, 1<<1)
			if r.Null() {
				break
			}
			in.messages = []inMessage{}
			for range r.Elements {
				in.messages = append(in.messages, inMessage{fast: true})
				fastRequestMessage(r, &in.messages[len(in.messages)-1])
			}
		case "tools":
			once(r, &seen, 1<<2)
			if r.Null() {
				break
			}
			in.tools = []inTool{}
			for range r.Elements {
				in.tools = append(in.tools, inTool{})
				fastTool(r, &in.tools[len(in.tools)-1])
			}
		case "tool_choice":
			once(r, &seen, 1<<3)
			switch {
			case r.Null():
			case r.IsString():
				in.choice.kind, in.choice.mode = readText, r.String()
			default:
				in.choice.kind = readObject
				fastNamedChoice(r, &in.choice.named)
			}
		case "parallel_tool_calls":
			once(r, &seen, 1<<4)
			in.ParallelToolCalls = boolPtr(r)
		case "max_tokens":
			once(r, &seen, 1<<5)
			in.MaxTokens = intPtr(r)
		case "max_completion_tokens":
			once(r, &seen, 1<<6)
			in.MaxCompletionTokens = intPtr(r)
		case "temperature":
			once(r, &seen, 1<<7)
			in.Temperature = floatPtr(r)
		case "top_p":
			once(r, &seen, 1<<8)
			in.TopP = floatPtr(r)
		case "stop":
			once(r, &seen, 1<<9)
			switch {
			case r.Null():
			case r.IsString():
				in.stop = []string{r.String()}
			default:
				in.stop = []string{}
				for range r.Elements {
					in.stop = append(in.stop, r.String())
				}
			}
		case "seed":
			once(r, &seen, 1<<10)
			if !r.Null() {
				v := r.Int()
				in.Seed = &v
			}
		case "n":
			once(r, &seen, 1<<11)
			in.N = intPtr(r)
		case "response_format":
			once(r, &seen, 1<<12)
			if !r.Null() {
				in.ResponseFormat = fastResponseFormat(r)
			}
		case "reasoning_effort":
			once(r, &seen, 1<<13)
			in.ReasoningEffort = r.StringPtr()
		case "stream":
			once(r, &seen, 1<<14)
			in.Stream = r.Bool()
		case "stream_options":
			once(r, &seen, 1<<15)
			if r.Null() {
				break
			}
			in.StreamOptions = &inStreamOptions{}
			var oseen uint
			for key := range r.Members {
				if string(key) != "include_usage" {
					r.Skip()
					continue
				}
				once(r, &oseen, 1)
				in.StreamOptions.IncludeUsage = r.Bool()
			}
		case "user":
			once(r, &seen, 1<<16)
			in.User = r.String()
		case "metadata":
			once(r, &seen, 1<<17)
			if r.Null() {
				break
			}
			in.Metadata = map[string]string{}
			for key := range r.Members {
				in.Metadata[string(key)] = r.String() // a repeated key: the last, as encoding/json
			}
		default:
			r.Skip()
		}
	}
	if !r.End() {
		return inRequest{}, "", false
	}
	return in, model, true
}

func boolPtr(r *wirejson.Reader) *bool {
	if r.Null() {
		return nil
	}
	v := r.Bool()
	return &v
}

func intPtr(r *wirejson.Reader) *int {
	if r.Null() {
		return nil
	}
	v := readInt(r)
	return &v
}

func floatPtr(r *wirejson.Reader) *float64 {
	if r.Null() {
		return nil
	}
	v := r.Float()
	return &v
}

// fastRequestMessage reads one element of messages into m.
func fastRequestMessage(r *wirejson.Reader, m *inMessage) {
	if r.Null() {
		return
	}
	var seen uint
	for key := range r.Members {
		switch string(key) {
		case "role":
			once(r, &seen, 1<<0)
			m.Role = r.String()
		case "content":
			once(r, &seen, 1<<1)
			switch {
			case r.Null():
			case r.IsString():
				m.content, m.text = readText, r.String()
			default:
				m.content, m.parts = readArray, []inPart{}
				for range r.Elements {
					m.parts = append(m.parts, inPart{})
					fastPart(r, &m.parts[len(m.parts)-1])
				}
			}
		case "name":
			once(r, &seen, 1<<2)
			m.Name = r.String()
		case "tool_calls":
			once(r, &seen, 1<<3)
			if r.Null() {
				break
			}
			m.toolCalls = []inToolCall{}
			for range r.Elements {
				m.toolCalls = append(m.toolCalls, inToolCall{})
				fastToolCall(r, &m.toolCalls[len(m.toolCalls)-1])
			}
		case "tool_call_id":
			once(r, &seen, 1<<4)
			m.ToolCallID = r.String()
		case "refusal":
			once(r, &seen, 1<<5)
			m.Refusal = r.StringPtr()
		default:
			r.Skip()
		}
	}
}

// fastPart reads one element of a message's content array into p.
func fastPart(r *wirejson.Reader, p *inPart) {
	if r.Null() {
		return
	}
	var seen uint
	for key := range r.Members {
		switch string(key) {
		case "type":
			once(r, &seen, 1<<0)
			p.Type = r.String()
		case "text":
			once(r, &seen, 1<<1)
			p.Text = r.String()
		case "refusal":
			once(r, &seen, 1<<2)
			p.Refusal = r.String()
		case "image_url":
			once(r, &seen, 1<<3)
			if r.Null() {
				break
			}
			p.ImageURL = &inImage{}
			var iseen uint
			for key := range r.Members {
				if string(key) != "url" {
					r.Skip()
					continue
				}
				once(r, &iseen, 1)
				p.ImageURL.URL = r.String()
			}
		case "file":
			once(r, &seen, 1<<4)
			if !r.Null() {
				p.File = fastFile(r)
			}
		case "cache_control":
			once(r, &seen, 1<<5)
			if r.Null() {
				break
			}
			p.CacheControl = &wireCache{}
			var cseen uint
			for key := range r.Members {
				switch string(key) {
				case "type":
					once(r, &cseen, 1)
					p.CacheControl.Type = r.String()
				case "ttl":
					once(r, &cseen, 2)
					p.CacheControl.TTL = r.String()
				default:
					r.Skip()
				}
			}
		default:
			r.Skip()
		}
	}
}

func fastFile(r *wirejson.Reader) *inFile {
	f := &inFile{}
	var seen uint
	for key := range r.Members {
		switch string(key) {
		case "file_data":
			once(r, &seen, 1)
			f.FileData = r.String()
		case "file_id":
			once(r, &seen, 2)
			f.FileID = r.String()
		case "filename":
			once(r, &seen, 4)
			f.Filename = r.String()
		default:
			r.Skip()
		}
	}
	return f
}

// fastTool reads one element of tools into t.
func fastTool(r *wirejson.Reader, t *inTool) {
	if r.Null() {
		return
	}
	var seen uint
	for key := range r.Members {
		switch string(key) {
		case "type":
			once(r, &seen, 1)
			t.Type = r.String()
		case "function":
			once(r, &seen, 2)
			if r.Null() {
				break
			}
			f := &inToolFunction{}
			t.Function = f
			var fseen uint
			for key := range r.Members {
				switch string(key) {
				case "name":
					once(r, &fseen, 1)
					f.Name = r.String()
				case "description":
					once(r, &fseen, 2)
					f.Description = r.String()
				case "parameters":
					once(r, &fseen, 4)
					f.Parameters = r.Raw()
				case "strict":
					once(r, &fseen, 8)
					f.Strict = r.Bool()
				default:
					r.Skip()
				}
			}
		default:
			r.Skip()
		}
	}
}

// fastNamedChoice reads a tool_choice object into c; anything but an object
// fails r.
func fastNamedChoice(r *wirejson.Reader, c *inNamedChoice) {
	var seen uint
	for key := range r.Members {
		switch string(key) {
		case "type":
			once(r, &seen, 1)
			c.Type = r.String()
		case "function":
			once(r, &seen, 2)
			if r.Null() {
				break
			}
			var fseen uint
			for key := range r.Members {
				if string(key) != "name" {
					r.Skip()
					continue
				}
				once(r, &fseen, 1)
				c.Function.Name = r.String()
			}
		default:
			r.Skip()
		}
	}
}

func fastResponseFormat(r *wirejson.Reader) *inResponseFormat {
	f := &inResponseFormat{}
	var seen uint
	for key := range r.Members {
		switch string(key) {
		case "type":
			once(r, &seen, 1)
			f.Type = r.String()
		case "json_schema":
			once(r, &seen, 2)
			if r.Null() {
				break
			}
			s := &inJSONSchema{}
			f.JSONSchema = s
			var sseen uint
			for key := range r.Members {
				switch string(key) {
				case "name":
					once(r, &sseen, 1)
					s.Name = r.String()
				case "schema":
					once(r, &sseen, 2)
					s.Schema = r.Raw()
				case "strict":
					once(r, &sseen, 4)
					s.Strict = r.Bool()
				default:
					r.Skip()
				}
			}
		default:
			r.Skip()
		}
	}
	return f
}

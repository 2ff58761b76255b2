package dispatchtest

import (
	"encoding/json"

	"github.com/heddle-gw/heddle/llm/sse"
)

// chatWire renders OpenAI Chat Completions answers.
type chatWire struct{}

type obj = map[string]any

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func chatFinish(st Step) string {
	if st.Tool != nil {
		return "tool_calls"
	}
	return "stop"
}

func (chatWire) usage(st Step) obj {
	in, out := st.usage()
	return obj{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}
}

func (c chatWire) body(st Step, model string) []byte {
	msg := obj{"role": "assistant", "content": st.text(model)}
	if st.Tool != nil {
		msg = obj{"role": "assistant", "content": nil, "tool_calls": []obj{{
			"id": st.Tool.ID, "type": "function",
			"function": obj{"name": st.Tool.Name, "arguments": st.Tool.Arguments},
		}}}
	}
	return mustJSON(obj{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": 1767323045, "model": model,
		"choices": []obj{{"index": 0, "message": msg, "finish_reason": chatFinish(st)}},
		"usage":   c.usage(st),
	})
}

func (c chatWire) frames(st Step, model string) [][]byte {
	chunk := func(delta obj, finish any) []byte {
		return sse.AppendFrame(nil, "", mustJSON(obj{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1767323045, "model": model,
			"choices": []obj{{"index": 0, "delta": delta, "finish_reason": finish}},
		}))
	}
	out := [][]byte{chunk(obj{"role": "assistant", "content": ""}, nil)}
	if st.Tool != nil {
		out = append(out,
			chunk(obj{"tool_calls": []obj{{"index": 0, "id": st.Tool.ID, "type": "function",
				"function": obj{"name": st.Tool.Name, "arguments": ""}}}}, nil),
			chunk(obj{"tool_calls": []obj{{"index": 0, "function": obj{"arguments": st.Tool.Arguments}}}}, nil))
	} else {
		for _, w := range words(st.text(model)) {
			out = append(out, chunk(obj{"content": w}, nil))
		}
	}
	out = append(out, chunk(obj{}, chatFinish(st)))
	out = append(out, sse.AppendFrame(nil, "", mustJSON(obj{
		"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1767323045, "model": model,
		"choices": []obj{}, "usage": c.usage(st),
	})))
	return append(out, []byte("data: [DONE]\n\n"))
}

func (chatWire) errorBody(st Step) []byte {
	return mustJSON(obj{"error": obj{"message": st.message(), "type": "scripted_error", "param": nil, "code": nil}})
}

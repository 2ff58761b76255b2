package dispatchtest

import "github.com/heddle-gw/heddle/llm/sse"

// anthropicWire renders Anthropic Messages answers.
type anthropicWire struct{}

func anthropicStop(st Step) string {
	if st.Tool != nil {
		return "tool_use"
	}
	return "end_turn"
}

func (anthropicWire) content(st Step, model string) obj {
	if st.Tool != nil {
		return obj{"type": "tool_use", "id": st.Tool.ID, "name": st.Tool.Name, "input": rawJSON(st.Tool.Arguments)}
	}
	return obj{"type": "text", "text": st.text(model)}
}

type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) {
	if r == "" {
		return []byte("{}"), nil
	}
	return []byte(r), nil
}

func (a anthropicWire) body(st Step, model string) []byte {
	in, out := st.usage()
	return mustJSON(obj{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
		"content": []obj{a.content(st, model)}, "stop_reason": anthropicStop(st), "stop_sequence": nil,
		"usage": obj{"input_tokens": in, "output_tokens": out},
	})
}

func (a anthropicWire) frames(st Step, model string) [][]byte {
	in, outTok := st.usage()
	ev := func(name string, v obj) []byte { return sse.AppendFrame(nil, name, mustJSON(v)) }
	out := [][]byte{
		ev("message_start", obj{"type": "message_start", "message": obj{
			"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": []obj{},
			"stop_reason": nil, "stop_sequence": nil, "usage": obj{"input_tokens": in, "output_tokens": 1},
		}}),
		ev("ping", obj{"type": "ping"}),
	}
	if st.Tool != nil {
		out = append(out,
			ev("content_block_start", obj{"type": "content_block_start", "index": 0, "content_block": obj{
				"type": "tool_use", "id": st.Tool.ID, "name": st.Tool.Name, "input": obj{}}}),
			ev("content_block_delta", obj{"type": "content_block_delta", "index": 0, "delta": obj{
				"type": "input_json_delta", "partial_json": st.Tool.Arguments}}))
	} else {
		out = append(out, ev("content_block_start", obj{"type": "content_block_start", "index": 0,
			"content_block": obj{"type": "text", "text": ""}}))
		for _, w := range words(st.text(model)) {
			out = append(out, ev("content_block_delta", obj{"type": "content_block_delta", "index": 0,
				"delta": obj{"type": "text_delta", "text": w}}))
		}
	}
	return append(out,
		ev("content_block_stop", obj{"type": "content_block_stop", "index": 0}),
		ev("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": anthropicStop(st),
			"stop_sequence": nil}, "usage": obj{"output_tokens": outTok}}),
		ev("message_stop", obj{"type": "message_stop"}))
}

func (anthropicWire) errorBody(st Step) []byte {
	kind := "api_error"
	switch st.Status {
	case 400:
		kind = "invalid_request_error"
	case 401:
		kind = "authentication_error"
	case 403:
		kind = "permission_error"
	case 404:
		kind = "not_found_error"
	case 429:
		kind = "rate_limit_error"
	case 529:
		kind = "overloaded_error"
	}
	return mustJSON(obj{"type": "error", "error": obj{"type": kind, "message": st.message()}})
}

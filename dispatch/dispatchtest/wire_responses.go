package dispatchtest

import "github.com/heddle-gw/heddle/llm/sse"

// responsesWire renders OpenAI Responses answers: one output item (a message
// with one output_text part, or a function_call), and a stream of typed
// events with sequence numbers, as api.openai.com sends them.
type responsesWire struct{}

const (
	responsesID      = "resp_fake"
	responsesMsgID   = "msg_fake"
	responsesCallID  = "fc_fake"
	responsesCreated = 1767323045
)

func (responsesWire) usage(st Step) obj {
	in, out := st.usage()
	return obj{
		"input_tokens": in, "input_tokens_details": obj{"cached_tokens": 0},
		"output_tokens": out, "output_tokens_details": obj{"reasoning_tokens": 0},
		"total_tokens": in + out,
	}
}

// item is the finished output item; status is its status field.
func (responsesWire) item(st Step, model, status string) obj {
	if st.Tool != nil {
		return obj{"id": responsesCallID, "type": "function_call", "status": status,
			"call_id": st.Tool.ID, "name": st.Tool.Name, "arguments": st.Tool.Arguments}
	}
	return obj{"id": responsesMsgID, "type": "message", "status": status, "role": "assistant",
		"content": []obj{{"type": "output_text", "text": st.text(model), "annotations": []obj{}, "logprobs": []obj{}}}}
}

// response is the response object; output and usage are nil while in
// progress.
func (r responsesWire) response(st Step, model, status string, output []obj, usage obj) obj {
	if output == nil {
		output = []obj{}
	}
	var u any
	if usage != nil {
		u = usage
	}
	return obj{
		"id": responsesID, "object": "response", "created_at": responsesCreated, "status": status,
		"error": nil, "incomplete_details": nil, "model": model, "output": output,
		"parallel_tool_calls": true, "tool_choice": "auto", "tools": []obj{}, "usage": u,
	}
}

func (r responsesWire) body(st Step, model string) []byte {
	return mustJSON(r.response(st, model, "completed", []obj{r.item(st, model, "completed")}, r.usage(st)))
}

func (r responsesWire) frames(st Step, model string) [][]byte {
	seq := 0
	ev := func(typ string, v obj) []byte {
		v["type"], v["sequence_number"] = typ, seq
		seq++
		return sse.AppendFrame(nil, typ, mustJSON(v))
	}
	out := [][]byte{
		ev("response.created", obj{"response": r.response(st, model, "in_progress", nil, nil)}),
		ev("response.in_progress", obj{"response": r.response(st, model, "in_progress", nil, nil)}),
	}
	if st.Tool != nil {
		added := r.item(st, model, "in_progress")
		added["arguments"] = ""
		out = append(out,
			ev("response.output_item.added", obj{"output_index": 0, "item": added}),
			ev("response.function_call_arguments.delta", obj{"item_id": responsesCallID, "output_index": 0,
				"delta": st.Tool.Arguments}),
			ev("response.function_call_arguments.done", obj{"item_id": responsesCallID, "output_index": 0,
				"arguments": st.Tool.Arguments}))
	} else {
		text := st.text(model)
		part := func(t string) obj { return obj{"type": "output_text", "text": t, "annotations": []obj{}} }
		out = append(out,
			ev("response.output_item.added", obj{"output_index": 0, "item": obj{"id": responsesMsgID,
				"type": "message", "status": "in_progress", "role": "assistant", "content": []obj{}}}),
			ev("response.content_part.added", obj{"item_id": responsesMsgID, "output_index": 0,
				"content_index": 0, "part": part("")}))
		for _, w := range words(text) {
			out = append(out, ev("response.output_text.delta", obj{"item_id": responsesMsgID,
				"output_index": 0, "content_index": 0, "delta": w, "logprobs": []obj{}}))
		}
		out = append(out,
			ev("response.output_text.done", obj{"item_id": responsesMsgID, "output_index": 0,
				"content_index": 0, "text": text, "logprobs": []obj{}}),
			ev("response.content_part.done", obj{"item_id": responsesMsgID, "output_index": 0,
				"content_index": 0, "part": part(text)}))
	}
	done := r.item(st, model, "completed")
	return append(out,
		ev("response.output_item.done", obj{"output_index": 0, "item": done}),
		ev("response.completed", obj{"response": r.response(st, model, "completed", []obj{done}, r.usage(st))}))
}

func (responsesWire) errorBody(st Step) []byte {
	kind := "server_error"
	switch st.Status {
	case 400, 404:
		kind = "invalid_request_error"
	case 401:
		kind = "authentication_error"
	case 429:
		kind = "rate_limit_exceeded"
	}
	return mustJSON(obj{"error": obj{"message": st.message(), "type": kind, "param": nil, "code": nil}})
}

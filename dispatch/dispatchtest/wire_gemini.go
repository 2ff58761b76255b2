package dispatchtest

import "strings"

// geminiWire renders Gemini generateContent answers. Like the Gemini API, a
// functionCall carries no id (a scripted Tool's ID is not sent), the finish
// reason is STOP for text and calls alike, and a stream is a series of whole
// GenerateContentResponse objects as "data:" frames ending in CRLF CRLF, the
// last one with the finish reason and the full usage.
type geminiWire struct{}

const geminiResponseID = "gemfake01"

// geminiRoute reads /v1beta/models/{model}:generateContent or
// :streamGenerateContent from a path.
func geminiRoute(path string) (model string, stream, ok bool) {
	i := strings.Index(path, "/models/")
	if i < 0 {
		return "", false, false
	}
	rest := path[i+len("/models/"):]
	j := strings.LastIndexByte(rest, ':')
	if j <= 0 {
		return "", false, false
	}
	switch rest[j+1:] {
	case "generateContent":
		return rest[:j], false, true
	case "streamGenerateContent":
		return rest[:j], true, true
	}
	return "", false, false
}

func (geminiWire) usage(st Step, final bool) obj {
	in, out := st.usage()
	if !final {
		return obj{"promptTokenCount": in, "totalTokenCount": in}
	}
	return obj{"promptTokenCount": in, "candidatesTokenCount": out, "totalTokenCount": in + out,
		"promptTokensDetails": []obj{{"modality": "TEXT", "tokenCount": in}}}
}

// chunk is one GenerateContentResponse with parts; finish is "" until the end.
func (g geminiWire) chunk(st Step, model string, parts []obj, finish string) obj {
	cand := obj{"content": obj{"parts": parts, "role": "model"}, "index": 0}
	if finish != "" {
		cand["finishReason"] = finish
	}
	return obj{"candidates": []obj{cand}, "usageMetadata": g.usage(st, finish != ""),
		"modelVersion": model, "responseId": geminiResponseID}
}

func (geminiWire) call(st Step) obj {
	return obj{"functionCall": obj{"name": st.Tool.Name, "args": rawJSON(st.Tool.Arguments)}}
}

func (g geminiWire) body(st Step, model string) []byte {
	part := obj{"text": st.text(model)}
	if st.Tool != nil {
		part = g.call(st)
	}
	return mustJSON(g.chunk(st, model, []obj{part}, "STOP"))
}

func (g geminiWire) frames(st Step, model string) [][]byte {
	frame := func(v obj) []byte { return []byte("data: " + string(mustJSON(v)) + "\r\n\r\n") }
	if st.Tool != nil {
		return [][]byte{frame(g.chunk(st, model, []obj{g.call(st)}, "STOP"))}
	}
	ws := words(st.text(model))
	out := make([][]byte, 0, len(ws))
	for i, w := range ws {
		finish := ""
		if i == len(ws)-1 {
			finish = "STOP"
		}
		out = append(out, frame(g.chunk(st, model, []obj{{"text": w}}, finish)))
	}
	return out
}

func (geminiWire) errorBody(st Step) []byte {
	status := "INTERNAL"
	switch st.Status {
	case 400:
		status = "INVALID_ARGUMENT"
	case 401:
		status = "UNAUTHENTICATED"
	case 403:
		status = "PERMISSION_DENIED"
	case 404:
		status = "NOT_FOUND"
	case 429:
		status = "RESOURCE_EXHAUSTED"
	case 503:
		status = "UNAVAILABLE"
	}
	return mustJSON(obj{"error": obj{"code": st.Status, "message": st.message(), "status": status}})
}

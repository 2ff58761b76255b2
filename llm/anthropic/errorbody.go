package anthropic

import "github.com/heddle-gw/heddle/llm/internal/wirejson"

// errorBody is the API's error shape, also the data of a stream error event.
type errorBody struct {
	Type  string      `json:"type"`
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// EncodeError renders an error body in the API's shape:
// {"type":"error","error":{"type":kind,"message":message}}. An empty kind is
// derived from status.
func (*Codec) EncodeError(status int, kind, message string) []byte {
	if kind == "" {
		kind = KindForStatus(status)
	}
	b, err := wirejson.Marshal(errorBody{Type: "error", Error: errorDetail{Type: kind, Message: message}})
	if err != nil {
		return []byte(`{"type":"error","error":{"type":"api_error","message":"internal error"}}`)
	}
	return b
}

// KindForStatus returns the API's error type for an HTTP status.
func KindForStatus(status int) string {
	switch status {
	case 400, 422:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 402:
		return "billing_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 503, 529:
		return "overloaded_error"
	case 504:
		return "timeout_error"
	}
	return "api_error"
}

package openaichat

// errorBody is the API's error shape, also sent as a stream frame.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// EncodeError renders an error body in the API's shape:
// {"error":{"message":...,"type":...,"param":null,"code":...}}. kind is an
// Anthropic-style error type (the gateway's lingua franca) or empty, in which
// case status decides.
func (*Codec) EncodeError(status int, kind, message string) []byte {
	b, err := marshal(errorBody{Error: errorFor(status, kind, message)})
	if err != nil {
		return []byte(`{"error":{"message":"internal error","type":"server_error","param":null,"code":null}}`)
	}
	return b
}

func errorFor(status int, kind, message string) errorDetail {
	typ, code := openAIKind(status, kind)
	d := errorDetail{Message: message, Type: typ}
	if code != "" {
		d.Code = &code
	}
	return d
}

// openAIKind maps an error kind (or, when empty, a status) to OpenAI's
// error type and code.
func openAIKind(status int, kind string) (typ, code string) {
	switch kind {
	case "invalid_request_error":
		return "invalid_request_error", ""
	case "authentication_error":
		return "invalid_request_error", "invalid_api_key"
	case "permission_error":
		return "invalid_request_error", "permission_denied"
	case "not_found_error":
		return "invalid_request_error", "not_found"
	case "request_too_large":
		return "invalid_request_error", "request_too_large"
	case "billing_error":
		return "insufficient_quota", "insufficient_quota"
	case "rate_limit_error":
		return "requests", "rate_limit_exceeded"
	case "overloaded_error":
		return "server_error", "overloaded"
	case "timeout_error":
		return "server_error", "timeout"
	case "api_error":
		return "server_error", ""
	case "":
		switch {
		case status == 401:
			return "invalid_request_error", "invalid_api_key"
		case status == 429:
			return "requests", "rate_limit_exceeded"
		case status >= 500:
			return "server_error", ""
		}
		return "invalid_request_error", ""
	}
	return kind, ""
}

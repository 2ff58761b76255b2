package responses

import (
	"io"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// family is the reasoning family of every OpenAI model.
const family = "openai"

// Codec translates the OpenAI Responses wire format. The zero value is ready
// to use; it holds no state and is safe for concurrent use.
type Codec struct{}

var _ llm.Codec = (*Codec)(nil)

// New returns a Responses codec.
func New() *Codec { return &Codec{} }

// Format returns llm.FormatResponses.
func (*Codec) Format() llm.Format { return llm.FormatResponses }

// NewStreamDecoder returns a decoder of a Responses SSE stream read from r.
func (*Codec) NewStreamDecoder(r io.Reader) llm.StreamDecoder { return newStreamDecoder(r) }

// NewStreamEncoder returns an encoder writing a Responses SSE stream to w.
func (*Codec) NewStreamEncoder(w io.Writer) llm.StreamEncoder { return newStreamEncoder(w) }

// wireErrorBody is OpenAI's error shape.
type wireErrorBody struct {
	Error wireErrorDetail `json:"error"`
}

type wireErrorDetail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// EncodeError renders OpenAI's {"error":{message,type,param,code}} shape.
// kind is Heddle's Anthropic-style error type; it is mapped to OpenAI's.
func (*Codec) EncodeError(status int, kind, message string) []byte {
	typ, code := openAIErrorType(status, kind)
	body := wireErrorBody{Error: wireErrorDetail{Message: message, Type: typ}}
	if code != "" {
		body.Error.Code = &code
	}
	out, err := wirejson.Marshal(body)
	if err != nil {
		return []byte(`{"error":{"message":"internal error","type":"server_error","param":null,"code":null}}`)
	}
	return out
}

// openAIErrorType maps an Anthropic-style error kind (or, lacking one, an
// HTTP status) to OpenAI's error type and code.
func openAIErrorType(status int, kind string) (typ, code string) {
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
	case "rate_limit_error":
		return "rate_limit_error", "rate_limit_exceeded"
	case "billing_error":
		return "insufficient_quota", "insufficient_quota"
	case "overloaded_error":
		return "server_error", "server_is_overloaded"
	case "api_error":
		return "server_error", ""
	}
	switch {
	case status == 401:
		return "invalid_request_error", "invalid_api_key"
	case status == 402:
		return "insufficient_quota", "insufficient_quota"
	case status == 429:
		return "rate_limit_error", "rate_limit_exceeded"
	case status >= 500:
		return "server_error", ""
	}
	if kind != "" {
		return kind, ""
	}
	return "invalid_request_error", ""
}

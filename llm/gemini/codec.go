package gemini

import (
	"io"
	"net/http"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// family is the reasoning family of every Gemini model.
const family = "google"

// Codec translates the Gemini generateContent wire format. The zero value
// is ready to use; it holds no state and is safe for concurrent use.
type Codec struct{}

var _ llm.Codec = (*Codec)(nil)

// New returns a Gemini codec.
func New() *Codec { return &Codec{} }

// Format returns llm.FormatGemini.
func (*Codec) Format() llm.Format { return llm.FormatGemini }

// NewStreamDecoder returns a decoder of a streamGenerateContent?alt=sse stream.
func (*Codec) NewStreamDecoder(r io.Reader) llm.StreamDecoder { return newStreamDecoder(r) }

// NewStreamEncoder returns an encoder writing a streamGenerateContent SSE stream.
func (*Codec) NewStreamEncoder(w io.Writer) llm.StreamEncoder { return newStreamEncoder(w) }

// SetModel returns body unchanged: Gemini carries the model in the URL.
func (*Codec) SetModel(body []byte, _ string) ([]byte, error) { return body, nil }

// ModelOf returns "" and no error: a Gemini body never names its model (the
// URL path does, models/{model}:generateContent), and DecodeRequest leaves
// Request.Model empty for the caller to set from the path.
func (*Codec) ModelOf([]byte) (string, error) { return "", nil }

// wireErrorBody is Google's error shape.
type wireErrorBody struct {
	Error wireErrorDetail `json:"error"`
}

type wireErrorDetail struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Status  string          `json:"status"`
	Details []wireErrorInfo `json:"details,omitempty"`
}

// wireErrorInfo is a google.rpc.ErrorInfo detail naming Heddle's error kind.
type wireErrorInfo struct {
	Type   string `json:"@type"`
	Reason string `json:"reason"`
	Domain string `json:"domain"`
}

// EncodeError renders {"error":{"code","message","status"}}; kind, Heddle's
// Anthropic-style error type, travels as an ErrorInfo reason.
func (*Codec) EncodeError(status int, kind, message string) []byte {
	body := wireErrorBody{Error: wireErrorDetail{Code: status, Message: message, Status: statusName(status)}}
	if kind != "" {
		body.Error.Details = []wireErrorInfo{{Type: "type.googleapis.com/google.rpc.ErrorInfo", Reason: kind, Domain: "heddle"}}
	}
	out, err := wirejson.Marshal(body)
	if err != nil {
		return []byte(`{"error":{"code":500,"message":"internal error","status":"INTERNAL"}}`)
	}
	return out
}

// statusName maps an HTTP status to the google.rpc.Code name Google sends.
func statusName(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		return "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusPaymentRequired:
		return "FAILED_PRECONDITION"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusConflict:
		return "ABORTED"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case 499:
		return "CANCELLED"
	case http.StatusNotImplemented:
		return "UNIMPLEMENTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	case http.StatusGatewayTimeout:
		return "DEADLINE_EXCEEDED"
	}
	if status >= 500 {
		return "INTERNAL"
	}
	return "FAILED_PRECONDITION"
}

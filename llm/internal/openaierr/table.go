package openaierr

import (
	"net/http"

	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// Kind is one row of the table: a class of error as OpenAI's API reports it.
type Kind int

// The kinds, with the status each stands for when a caller names none.
const (
	// InvalidRequest is a request that cannot be served as sent (400, and
	// 409 and 422, which OpenAI's API does not distinguish).
	InvalidRequest Kind = iota
	// Authentication is a missing or unknown API key (401).
	Authentication
	// Permission is a key that may not do what it asks (403).
	Permission
	// NotFound is an unknown route or resource (404).
	NotFound
	// TooLarge is a request body over the size limit (413).
	TooLarge
	// RateLimit is a request-rate limit (429).
	RateLimit
	// Quota is a spent budget or quota (402 at Heddle; OpenAI sends 429).
	Quota
	// Server is a failure on the server's side (500 and other 5xx).
	Server
	// Overloaded is a server with no capacity for the request now (503).
	Overloaded
	// Timeout is a request that ran out of time (504).
	Timeout
)

// Kinds lists every kind, in order.
var Kinds = []Kind{InvalidRequest, Authentication, Permission, NotFound, TooLarge, RateLimit, Quota, Server, Overloaded, Timeout}

// wire is a kind's error type and code ("" for a null code).
var wire = [...]struct{ typ, code string }{
	InvalidRequest: {"invalid_request_error", ""},
	Authentication: {"invalid_request_error", "invalid_api_key"},
	Permission:     {"invalid_request_error", "permission_denied"},
	NotFound:       {"invalid_request_error", ""},
	TooLarge:       {"invalid_request_error", "request_too_large"},
	RateLimit:      {"requests", "rate_limit_exceeded"},
	Quota:          {"insufficient_quota", "insufficient_quota"},
	Server:         {"server_error", ""},
	Overloaded:     {"server_error", "server_is_overloaded"},
	Timeout:        {"server_error", "timeout"},
}

// Type is the kind's error.type.
func (k Kind) Type() string { return wire[k].typ }

// Code is the kind's error.code, "" where OpenAI sends null.
func (k Kind) Code() string { return wire[k].code }

// heddleKinds maps Heddle's error kinds (Anthropic's error types, the
// gateway's lingua franca) to the table.
var heddleKinds = map[string]Kind{
	"invalid_request_error": InvalidRequest,
	"authentication_error":  Authentication,
	"permission_error":      Permission,
	"not_found_error":       NotFound,
	"request_too_large":     TooLarge,
	"rate_limit_error":      RateLimit,
	"billing_error":         Quota,
	"api_error":             Server,
	"overloaded_error":      Overloaded,
	"timeout_error":         Timeout,
}

// KindOf returns the kind of Heddle's error kind, or when kind is empty the
// kind of the HTTP status. ok is false for a kind the table does not know.
func KindOf(status int, kind string) (k Kind, ok bool) {
	if kind != "" {
		k, ok = heddleKinds[kind]
		return k, ok
	}
	switch status {
	case http.StatusUnauthorized:
		return Authentication, true
	case http.StatusPaymentRequired:
		return Quota, true
	case http.StatusForbidden:
		return Permission, true
	case http.StatusNotFound:
		return NotFound, true
	case http.StatusRequestEntityTooLarge:
		return TooLarge, true
	case http.StatusTooManyRequests:
		return RateLimit, true
	case http.StatusServiceUnavailable:
		return Overloaded, true
	case http.StatusGatewayTimeout:
		return Timeout, true
	}
	if status >= 500 {
		return Server, true
	}
	return InvalidRequest, true
}

// Body is OpenAI's error body; the Chat stream also sends it as a frame.
type Body struct {
	Error Detail `json:"error"`
}

// Detail is the error object inside Body.
type Detail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// For returns the error object for status and Heddle's error kind (see
// KindOf); a kind the table does not know is sent as the type itself, with a
// null code. known reports whether the table knew it.
func For(status int, kind, message string) (d Detail, known bool) {
	k, known := KindOf(status, kind)
	if !known {
		return Detail{Message: message, Type: kind}, false
	}
	d = Detail{Message: message, Type: k.Type()}
	if code := k.Code(); code != "" {
		d.Code = &code
	}
	return d, true
}

// fallback is sent when a body cannot be marshalled.
const fallback = `{"error":{"message":"internal error","type":"server_error","param":null,"code":null}}`

// Encode renders the error body for status, kind and message (see For),
// without HTML escaping, as the API writes it.
func Encode(status int, kind, message string) []byte {
	d, _ := For(status, kind, message)
	out, err := wirejson.Marshal(Body{Error: d})
	if err != nil {
		return []byte(fallback)
	}
	return out
}

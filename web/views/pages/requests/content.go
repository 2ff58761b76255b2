package requests

// Content is a request's stored prompt and response (SPEC 8), as text
// (pretty-printed JSON when it is valid JSON).
type Content struct {
	Request           string
	Response          string
	RequestTruncated  bool
	ResponseTruncated bool
	Expires           string
}

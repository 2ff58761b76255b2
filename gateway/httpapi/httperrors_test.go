package httpapi_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/heddle-gw/heddle/llm"
)

// dataPath is one data-plane route as a client calls it.
type dataPath struct {
	method, target string
	format         llm.Format
	header         string // an extra header line, "" for none
	body           bool   // whether the route reads a JSON body
	// lineFormat is the format when the headers cannot be read: the one
	// the request line alone implies.
	lineFormat llm.Format
}

var dataPaths = []dataPath{
	{"POST", "/v1/messages", llm.FormatAnthropic, "", true, llm.FormatAnthropic},
	{"POST", "/v1/messages/count_tokens", llm.FormatAnthropic, "", true, llm.FormatAnthropic},
	{"POST", "/v1/chat/completions", llm.FormatChat, "", true, llm.FormatChat},
	{"POST", "/v1/responses", llm.FormatResponses, "", true, llm.FormatResponses},
	{"POST", "/v1beta/models/claude-sonnet-4-5:generateContent", llm.FormatGemini, "", true, llm.FormatGemini},
	{"POST", "/v1beta/models/claude-sonnet-4-5:streamGenerateContent?alt=sse", llm.FormatGemini, "", true, llm.FormatGemini},
	{"POST", "/v1beta/models/claude-sonnet-4-5:countTokens", llm.FormatGemini, "", true, llm.FormatGemini},
	{"POST", "/v1/route", llm.FormatChat, "", true, llm.FormatChat},
	{"POST", "/v1/route?format=gemini", llm.FormatGemini, "", true, llm.FormatGemini},
	{"POST", "/v1/route", llm.FormatAnthropic, "anthropic-version: 2023-06-01", true, llm.FormatChat},
	{"GET", "/v1/models", llm.FormatChat, "", false, llm.FormatChat},
	{"GET", "/v1/models", llm.FormatAnthropic, "anthropic-version: 2023-06-01", false, llm.FormatChat},
	{"GET", "/v1beta/models", llm.FormatGemini, "", false, llm.FormatGemini},
}

// httpCase is an error the HTTP layer raises (or, for malformed JSON, the
// handler) for a raw request.
type httpCase struct {
	name   string
	raw    func(p dataPath) string
	status int
	code   string
	body   bool // applies only to routes that read a body
	// headersLost: fasthttp could not read the headers, so only the
	// request line tells the format.
	headersLost bool
}

// rawRequest is an HTTP/1.1 request with the test key; extra is more
// header lines, each ending in CRLF.
func rawRequest(p dataPath, contentType, extra, body string) string {
	h := p.method + " " + p.target + " HTTP/1.1\r\nHost: heddle.test\r\nAuthorization: Bearer " + testKey +
		"\r\nx-api-key: " + testKey + "\r\nx-goog-api-key: " + testKey + "\r\n"
	if p.header != "" {
		h += p.header + "\r\n"
	}
	if contentType != "" {
		h += "Content-Type: " + contentType + "\r\n"
	}
	return h + extra + fmt.Sprintf("Content-Length: %d\r\nConnection: close\r\n\r\n", len(body)) + body
}

var httpCases = []httpCase{
	{
		name:   "body too large",
		raw:    func(p dataPath) string { return rawRequest(p, "application/json", "", strings.Repeat("a", 2*badLimit)) },
		status: 413, code: "request.too_large",
	},
	{
		name: "headers too large",
		raw: func(p dataPath) string {
			return rawRequest(p, "application/json", "X-Padding: "+strings.Repeat("p", 8<<10)+"\r\n", `{}`)
		},
		status: 431, code: "request.invalid", headersLost: true,
	},
	{
		name: "multipart content type",
		raw: func(p dataPath) string {
			return rawRequest(p, "multipart/form-data; boundary=xyz", "", "--xyz\r\nnot a part\r\n")
		},
		status: 400, code: "request.invalid", body: true,
	},
	{
		name: "malformed JSON",
		raw: func(p dataPath) string {
			return rawRequest(p, "application/json", "", `{"model": "claude-sonnet-4-5", "messages": [`)
		},
		status: 400, code: "request.invalid", body: true,
	},
	{
		name:   "malformed header line",
		raw:    func(p dataPath) string { return rawRequest(p, "application/json", "no colon here\r\n", `{}`) },
		status: 400, code: "request.invalid", headersLost: true,
	},
}

// TestHTTPLayerErrorsInNativeShape sends raw requests through fasthttp's
// real request reader (an in-memory listener: no socket resets) and checks
// that every error, including those raised before routing, comes in the
// caller's own error shape with x-heddle-error, and echoes no header.
func TestHTTPLayerErrorsInNativeShape(t *testing.T) {
	s := newServer(t, badLimit, &executor{t: t})
	ln := fasthttputil.NewInmemoryListener()
	go func() { _ = s.app.Listener(ln) }()
	t.Cleanup(func() { _ = s.app.Shutdown() })
	for _, p := range dataPaths {
		for _, c := range httpCases {
			if c.body && !p.body {
				continue
			}
			t.Run(p.method+" "+p.target+" "+p.header+"/"+c.name, func(t *testing.T) {
				got := sendRaw(t, ln, c.raw(p))
				if got.status != c.status || got.header.Get("x-heddle-error") != c.code {
					t.Errorf("status %d x-heddle-error %q, want %d %q: %s", got.status, got.header.Get("x-heddle-error"), c.status, c.code, got.body)
				}
				if ct := got.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
					t.Errorf("Content-Type = %q, want JSON", ct)
				}
				f := p.format
				if c.headersLost {
					f = p.lineFormat
				}
				parseNativeError(t, f, got.status, got.body)
				if strings.Contains(string(got.body), testKey) || strings.Contains(string(got.body), "heddle.test") {
					t.Errorf("the error echoes request headers: %s", got.body)
				}
			})
		}
	}
}

// sendRaw writes raw on a fresh in-memory connection and reads the answer.
func sendRaw(t *testing.T, ln *fasthttputil.InmemoryListener, raw string) reply {
	t.Helper()
	conn, err := ln.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	go func() { _, _ = io.WriteString(conn, raw) }() // the server may stop reading early
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	return readReply(t, resp)
}

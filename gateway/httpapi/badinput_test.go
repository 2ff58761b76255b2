package httpapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

// endpoint is one inference endpoint with its format's auth style and
// bodies.
type endpoint struct {
	name   string
	format llm.Format
	// path is the URL for a model and stream flag (Gemini names both in it).
	path func(model string, stream bool) string
	// body is a valid request body for a model and stream flag.
	body func(model string, stream bool) string
	// auth presents a key the way the format's official clients do.
	auth func(r *http.Request, key string)
	// wrongType is a body with one member of the wrong JSON type, and
	// wrongField the path the error must name.
	wrongType, wrongField string
}

var endpoints = []endpoint{
	{
		name: "anthropic messages", format: llm.FormatAnthropic,
		path: func(string, bool) string { return "/v1/messages" },
		body: func(model string, stream bool) string {
			return fmt.Sprintf(`{"model":%q,"max_tokens":64,"stream":%v,"messages":[{"role":"user","content":"hi"}]}`, model, stream)
		},
		auth:       func(r *http.Request, key string) { r.Header.Set("x-api-key", key) },
		wrongType:  `{"model":"claude-sonnet-4-5","max_tokens":"many","messages":[{"role":"user","content":"hi"}]}`,
		wrongField: "max_tokens",
	},
	{
		name: "openai chat completions", format: llm.FormatChat,
		path: func(string, bool) string { return "/v1/chat/completions" },
		body: func(model string, stream bool) string {
			return fmt.Sprintf(`{"model":%q,"stream":%v,"messages":[{"role":"user","content":"hi"}]}`, model, stream)
		},
		auth:       func(r *http.Request, key string) { r.Header.Set("Authorization", "Bearer "+key) },
		wrongType:  `{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"}],"temperature":"hot"}`,
		wrongField: "temperature",
	},
	{
		name: "openai responses", format: llm.FormatResponses,
		path: func(string, bool) string { return "/v1/responses" },
		body: func(model string, stream bool) string {
			return fmt.Sprintf(`{"model":%q,"stream":%v,"input":"hi"}`, model, stream)
		},
		auth:       func(r *http.Request, key string) { r.Header.Set("Authorization", "Bearer "+key) },
		wrongType:  `{"model":"gpt-5","input":"hi","max_output_tokens":"lots"}`,
		wrongField: "max_output_tokens",
	},
	{
		name: "gemini generateContent", format: llm.FormatGemini,
		path: func(model string, stream bool) string {
			if stream {
				return "/v1beta/models/" + model + ":streamGenerateContent?alt=sse"
			}
			return "/v1beta/models/" + model + ":generateContent"
		},
		body: func(string, bool) string {
			return `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
		},
		auth:       func(r *http.Request, key string) { r.Header.Set("x-goog-api-key", key) },
		wrongType:  `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"maxOutputTokens":"x"}}`,
		wrongField: "generationConfig.maxOutputTokens",
	},
}

// validModel is a catalog model every endpoint may name.
const validModel = "claude-sonnet-4-5"

// badLimit is the body limit of the test server.
const badLimit = 4 << 10

// badCase is one kind of bad input.
type badCase struct {
	name string
	// request builds the request for endpoint e.
	request func(e endpoint) *http.Request
	status  int
	code    string // x-heddle-error
	// kinds are the native error kinds per format family.
	anthropicKind, openAIType, openAICode, geminiStatus string
	// mention is text the message must contain ("" for none).
	mention func(e endpoint) string
	// recorded says whether the turn reached the pipeline (and left a row).
	recorded bool
	// network sends the request over a loopback listener (see doOverNetwork).
	network bool
}

func post(e endpoint, path, body, key string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if key != "" {
		e.auth(r, key)
	}
	return r
}

var badCases = []badCase{
	{
		name: "malformed JSON",
		request: func(e endpoint) *http.Request {
			return post(e, e.path(validModel, false), `{"model": "claude-sonnet-4-5", "messages": [`, testKey)
		},
		status: 400, code: "request.invalid",
		anthropicKind: "invalid_request_error", openAIType: "invalid_request_error", geminiStatus: "INVALID_ARGUMENT",
		mention:  func(endpoint) string { return "JSON" },
		recorded: true,
	},
	{
		name:    "wrong field type",
		request: func(e endpoint) *http.Request { return post(e, e.path(validModel, false), e.wrongType, testKey) },
		status:  400, code: "request.invalid",
		anthropicKind: "invalid_request_error", openAIType: "invalid_request_error", geminiStatus: "INVALID_ARGUMENT",
		mention:  func(e endpoint) string { return e.wrongField },
		recorded: true,
	},
	{
		name: "unknown model",
		request: func(e endpoint) *http.Request {
			return post(e, e.path("no-such-model-9000", false), e.body("no-such-model-9000", false), testKey)
		},
		status: 400, code: "request.unknown_model",
		anthropicKind: "invalid_request_error", openAIType: "invalid_request_error", geminiStatus: "INVALID_ARGUMENT",
		mention:  func(endpoint) string { return "no-such-model-9000" },
		recorded: true,
	},
	{
		name: "unknown model, streaming",
		request: func(e endpoint) *http.Request {
			return post(e, e.path("no-such-model-9000", true), e.body("no-such-model-9000", true), testKey)
		},
		status: 400, code: "request.unknown_model",
		anthropicKind: "invalid_request_error", openAIType: "invalid_request_error", geminiStatus: "INVALID_ARGUMENT",
		mention:  func(endpoint) string { return "no-such-model-9000" },
		recorded: true,
	},
	{
		name: "oversized body",
		request: func(e endpoint) *http.Request {
			big := strings.Replace(e.body(validModel, false), `"hi"`, `"`+strings.Repeat("a", 2*badLimit)+`"`, 1)
			return post(e, e.path(validModel, false), big, testKey)
		},
		status: 413, code: "request.too_large",
		anthropicKind: "request_too_large", openAIType: "invalid_request_error", openAICode: "request_too_large",
		geminiStatus: "INVALID_ARGUMENT",
		mention:      func(endpoint) string { return "limit" },
		network:      true,
	},
	{
		name: "missing auth",
		request: func(e endpoint) *http.Request {
			return post(e, e.path(validModel, false), e.body(validModel, false), "")
		},
		status: 401, code: "tenancy.unauthorized",
		anthropicKind: "authentication_error", openAIType: "invalid_request_error", openAICode: "invalid_api_key",
		geminiStatus: "UNAUTHENTICATED",
	},
	{
		name: "wrong auth",
		request: func(e endpoint) *http.Request {
			return post(e, e.path(validModel, false), e.body(validModel, false), "rk_notAKeyThisServerKnows00000000000")
		},
		status: 401, code: "tenancy.unauthorized",
		anthropicKind: "authentication_error", openAIType: "invalid_request_error", openAICode: "invalid_api_key",
		geminiStatus: "UNAUTHENTICATED",
	},
}

// TestBadInput posts every kind of bad input to every inference endpoint
// through the real handlers and pipeline, and checks that each gets a clear
// 4xx in the caller's own error shape, with the x-heddle-error code, the
// field named where there is one, and no upstream call.
func TestBadInput(t *testing.T) {
	for _, e := range endpoints {
		for _, c := range badCases {
			t.Run(e.name+"/"+c.name, func(t *testing.T) {
				s := newServer(t, badLimit, &executor{t: t})
				var got reply
				if c.network {
					got = s.doOverNetwork(t, c.request(e))
				} else {
					got = s.do(t, c.request(e))
				}
				if got.status != c.status {
					t.Errorf("status = %d, want %d (body %s)", got.status, c.status, got.body)
				}
				if h := got.header.Get("x-heddle-error"); h != c.code {
					t.Errorf("x-heddle-error = %q, want %q", h, c.code)
				}
				if ct := got.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
					t.Errorf("Content-Type = %q, want JSON", ct)
				}
				ne := parseNativeError(t, e.format, got.status, got.body)
				switch e.format {
				case llm.FormatAnthropic:
					if ne.Kind != c.anthropicKind {
						t.Errorf("error.type = %q, want %q", ne.Kind, c.anthropicKind)
					}
				case llm.FormatChat, llm.FormatResponses:
					if ne.Kind != c.openAIType || ne.Code != c.openAICode {
						t.Errorf("error.type/code = %q/%q, want %q/%q", ne.Kind, ne.Code, c.openAIType, c.openAICode)
					}
				case llm.FormatGemini:
					if ne.Kind != c.geminiStatus {
						t.Errorf("error.status = %q, want %q", ne.Kind, c.geminiStatus)
					}
				}
				if c.mention != nil && !strings.Contains(ne.Message, c.mention(e)) {
					t.Errorf("message %q does not name %q", ne.Message, c.mention(e))
				}
				if n := s.exec.count(); n != 0 {
					t.Errorf("upstream called %d times", n)
				}
				rows := s.rec.rows()
				switch {
				case !c.recorded && len(rows) != 0:
					t.Errorf("a request rejected before the pipeline left %d rows", len(rows))
				case c.recorded && len(rows) != 1:
					t.Errorf("%d request rows, want 1", len(rows))
				case c.recorded:
					r := rows[0]
					if r.Status != c.status || r.ErrorCode != c.code || r.Format != string(e.format) || r.OrgID != "org_test" {
						t.Errorf("row status/code/format/org = %d/%q/%q/%q, want %d/%q/%q/org_test",
							r.Status, r.ErrorCode, r.Format, r.OrgID, c.status, c.code, e.format)
					}
				}
			})
		}
	}
}

// TestUnauthorizedIsOpaque checks that a missing key and a wrong key get the
// very same answer, whichever place the key was presented in.
func TestUnauthorizedIsOpaque(t *testing.T) {
	s := newServer(t, badLimit, &executor{t: t})
	for _, e := range endpoints {
		t.Run(e.name, func(t *testing.T) {
			missing := s.do(t, post(e, e.path(validModel, false), e.body(validModel, false), ""))
			wrong := s.do(t, post(e, e.path(validModel, false), e.body(validModel, false), "rk_wrong"))
			query := post(e, e.path(validModel, false), e.body(validModel, false), "")
			q := query.URL.Query()
			q.Set("key", "rk_wrong")
			query.URL.RawQuery = q.Encode()
			inQuery := s.do(t, query)
			for _, r := range []reply{wrong, inQuery} {
				if r.status != missing.status || string(r.body) != string(missing.body) {
					t.Errorf("answers differ: %d %s vs %d %s", r.status, r.body, missing.status, missing.body)
				}
			}
		})
	}
}

// TestLimitsUnreadableFailsClosed: a good key whose limits (its plan's
// defaults) cannot be read gets 503 billing.unavailable on every endpoint,
// not a 401 and not an unlimited turn; nothing reaches the upstream.
func TestLimitsUnreadableFailsClosed(t *testing.T) {
	s := newServer(t, badLimit, &executor{t: t})
	for _, e := range endpoints {
		t.Run(e.name, func(t *testing.T) {
			got := s.do(t, post(e, e.path(validModel, false), e.body(validModel, false), limitsDownKey))
			if got.status != 503 || got.header.Get("x-heddle-error") != "billing.unavailable" {
				t.Fatalf("status %d code %q (body %s), want 503 billing.unavailable", got.status, got.header.Get("x-heddle-error"), got.body)
			}
		})
	}
}

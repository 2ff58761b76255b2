package httpapi_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestEmbeddingsErrors: /v1/embeddings and Gemini's embedding methods
// answer refusals in their own format's error shape, record them, and never
// reach the upstream.
func TestEmbeddingsErrors(t *testing.T) {
	for _, tt := range []struct {
		name, path, body, key string
		status                int
		code                  string
		gemini                bool
	}{
		{name: "openai without a key", path: "/v1/embeddings", body: `{"model":"text-embedding-3-small","input":"a"}`,
			status: 401, code: "tenancy.unauthorized"},
		{name: "openai empty input", path: "/v1/embeddings", body: `{"model":"text-embedding-3-small","input":[]}`, key: testKey,
			status: 400, code: "request.invalid"},
		{name: "openai chat model", path: "/v1/embeddings", body: `{"model":"gpt-5","input":"a"}`, key: testKey,
			status: 400, code: "request.unknown_model"},
		{name: "gemini embedContent without parts", path: "/v1beta/models/gemini-embedding-001:embedContent",
			body: `{"content":{"parts":[]}}`, key: testKey, status: 400, code: "request.invalid", gemini: true},
		{name: "gemini batch of a chat model", path: "/v1beta/models/gemini-2.5-flash:batchEmbedContents",
			body: `{"requests":[{"content":{"parts":[{"text":"a"}]}}]}`, key: testKey, status: 400, code: "request.unknown_model", gemini: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, 1<<20, &executor{t: t})
			req := httptest.NewRequest("POST", tt.path, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			if tt.key != "" {
				req.Header.Set("Authorization", "Bearer "+tt.key)
			}
			r := s.do(t, req)
			if r.status != tt.status || r.header.Get("x-heddle-error") != tt.code {
				t.Fatalf("%d %q %s, want %d %q", r.status, r.header.Get("x-heddle-error"), r.body, tt.status, tt.code)
			}
			var shape struct {
				Error struct {
					Type   string `json:"type"`
					Status string `json:"status"`
					Code   any    `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(r.body, &shape); err != nil {
				t.Fatalf("body %s: %v", r.body, err)
			}
			if tt.gemini && (shape.Error.Status == "" || shape.Error.Code != float64(tt.status)) {
				t.Errorf("not Gemini's error shape: %s", r.body)
			}
			if !tt.gemini && shape.Error.Type == "" {
				t.Errorf("not OpenAI's error shape: %s", r.body)
			}
			if tt.key != "" {
				rows := s.rec.rows()
				if len(rows) != 1 || rows[0].Status != tt.status || rows[0].ErrorCode != tt.code {
					t.Errorf("records %+v", rows)
				}
			}
		})
	}
}

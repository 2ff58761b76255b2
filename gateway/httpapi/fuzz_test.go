package httpapi_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/heddle-gw/heddle/dispatch"
)

// FuzzHandlers posts arbitrary bodies to every inference endpoint through
// the real handlers and pipeline, whose upstream always fails. Nothing may
// panic, and every answer is a client error, or 502/503 for the failing
// upstream or router, in the caller's error shape with an x-heddle-error.
func FuzzHandlers(f *testing.F) {
	for i, e := range endpoints {
		for _, stream := range []bool{false, true} {
			f.Add(uint8(i)|streamBit(stream), []byte(e.body(validModel, stream)))
		}
		f.Add(uint8(i), []byte(e.wrongType))
		f.Add(uint8(i), []byte(e.body("auto", false)))
	}
	for _, body := range []string{
		``, `null`, `[]`, `{}`, `"x"`, `{"model":`, `{"model":{"a":1}}`, `{"model":"gpt-4.1","messages":[{"role":"tool"}]}`,
		`{"model":"claude-sonnet-4-5","max_tokens":1,"messages":[{"role":"user","content":[{"type":"image","source":{}}]}]}`,
		`{"model":"gpt-5","input":[{"type":"function_call_output"}]}`,
		`{"contents":[{"parts":[{"functionResponse":{"name":"f","response":[1]}}]}]}`,
		"{\"model\":\"gpt-4.1\",\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe\"}]}",
	} {
		for i := range endpoints {
			f.Add(uint8(i), []byte(body))
		}
	}
	s := newServer(f, 4<<20, &executor{err: fmt.Errorf("fuzz upstream: %w", dispatch.ErrAttemptsExhausted)})
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		e := endpoints[int(which&^streamBit(true))%len(endpoints)]
		stream := which&streamBit(true) != 0
		r := httptest.NewRequest(http.MethodPost, e.path(validModel, stream), bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		e.auth(r, testKey)
		got := s.do(t, r)
		if got.status >= 500 && got.status != 502 && got.status != 503 {
			t.Fatalf("%s: status %d for body %q: %s", e.name, got.status, body, got.body)
		}
		if got.status < 400 {
			t.Fatalf("%s: status %d although the upstream always fails: %s", e.name, got.status, got.body)
		}
		if got.header.Get("x-heddle-error") == "" {
			t.Errorf("%s: status %d without x-heddle-error", e.name, got.status)
		}
		parseNativeError(t, e.format, got.status, got.body)
	})
}

// streamBit marks a streaming request in the fuzzer's endpoint byte.
func streamBit(stream bool) uint8 {
	if stream {
		return 0x80
	}
	return 0
}

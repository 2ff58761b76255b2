package fastupstream_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkRoundTrip is one non-stream POST on a pooled connection with an
// answer header shaped like an OpenAI one. For instruction counts run it
// under callgrind at two -benchtime counts and divide the difference.
func BenchmarkRoundTrip(b *testing.B) {
	answer := "HTTP/1.1 200 OK\r\nDate: Thu, 03 Dec 2026 11:00:00 GMT\r\nContent-Type: application/json\r\n" +
		"Content-Length: 2\r\nConnection: keep-alive\r\nAccess-Control-Expose-Headers: X-Request-ID\r\n" +
		"Openai-Organization: org-x\r\nOpenai-Processing-Ms: 412\r\nOpenai-Version: 2020-10-01\r\n" +
		"X-Ratelimit-Limit-Requests: 10000\r\nX-Ratelimit-Limit-Tokens: 2000000\r\nX-Ratelimit-Remaining-Requests: 9999\r\n" +
		"X-Ratelimit-Remaining-Tokens: 1999000\r\nX-Ratelimit-Reset-Requests: 6ms\r\nX-Ratelimit-Reset-Tokens: 30ms\r\n" +
		"X-Request-Id: req_0123456789abcdef0123456789abcdef\r\nStrict-Transport-Security: max-age=31536000\r\n" +
		"Cf-Cache-Status: DYNAMIC\r\nServer: cloudflare\r\nCf-Ray: 8f0123456789abcd-FRA\r\n\r\nok"
	s := newRawServer(b, answerWith(answer))
	hc := client(b)
	body := []byte(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"` + strings.Repeat("x", 900) + `"}]}`)
	b.ResetTimer()
	for range b.N {
		req, _ := http.NewRequest(http.MethodPost, s.url+"/v1/chat/completions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer sk-x")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// BenchmarkRoundTripLargeHeader is a GET whose answer header (20 KiB of
// fields) is past the connection's read buffer, so it is read apart.
func BenchmarkRoundTripLargeHeader(b *testing.B) {
	fields, _ := manyFields(200)
	s := newRawServer(b, answerWith("HTTP/1.1 200 OK\r\n"+fields+"Content-Length: 2\r\n\r\nok"))
	hc := client(b)
	b.ResetTimer()
	for range b.N {
		resp, err := hc.Get(s.url + "/")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

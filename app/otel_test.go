package app

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/tenancy"
)

// tracedStack is the whole gateway exporting to an in-process receiver, with
// a second credential (openrouter) on the same fake upstream so gpt-5-mini
// can fail over from openai to openrouter.
func tracedStack(t *testing.T, env map[string]string) (*benchStack, *otlpReceiver) {
	t.Helper()
	rcv := newOTLPReceiver(t)
	vars := map[string]string{"HEDDLE_OTLP_ENDPOINT": rcv.URL, "HEDDLE_OTLP_HEADERS": "authorization=Bearer%20otlp-token-1"}
	for k, v := range env {
		vars[k] = v
	}
	s := newStack(t, vars)
	if _, err := s.c.creds.Add(context.Background(), s.actor, tenancy.CredentialInput{
		Provider: "openrouter", Secret: "sk-or-trace-secret-0000", BaseURL: s.up.URL + "/v1"}); err != nil {
		t.Fatal(err)
	}
	return s, rcv
}

// post sends a chat request and returns the response headers and body.
func post(t *testing.T, s *benchStack, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", s.heddle+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Cache-Control", "no-cache")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func flush(t *testing.T, s *benchStack) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.c.tracing.tp.ForceFlush(ctx); err != nil {
		t.Fatalf("flush: %v", err)
	}
}

const (
	incomingTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	incomingParent = "00f067aa0ba902b7"
	secretPrompt   = "the violet pelican recites 7741 verses"
)

// TestTracingFailoverTrace sends a request that fails over (503, then 200)
// with a caller traceparent, and a stream without one, and checks what the
// in-process collector received.
func TestTracingFailoverTrace(t *testing.T) {
	s, rcv := tracedStack(t, nil)
	s.up.Script("gpt-5-mini", dispatchtest.Status(503))
	s.up.Script("openai/gpt-5-mini", dispatchtest.OK("served by the backup"))
	resp, got := post(t, s, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"`+secretPrompt+`"}]}`,
		map[string]string{"traceparent": "00-" + incomingTrace + "-" + incomingParent + "-01", "tracestate": "caller=private"})
	if resp.StatusCode != 200 || resp.Header.Get("x-heddle-fallback") != "1" {
		t.Fatalf("failover: %d fallback=%q %s", resp.StatusCode, resp.Header.Get("x-heddle-fallback"), got)
	}
	requestID := resp.Header.Get("x-heddle-request-id")
	ups := s.up.Requests()
	if len(ups) != 2 {
		t.Fatalf("upstream saw %d requests, want 2", len(ups))
	}
	flush(t, s)

	spans := rcv.spans()
	var server, route *tracepb.Span
	var attempts []*tracepb.Span
	for _, e := range spans {
		if hex.EncodeToString(e.span.TraceId) != incomingTrace {
			continue
		}
		if e.resource["service.name"] != "heddle" || e.resource["service.version"] == "" {
			t.Errorf("resource = %v, want service.name heddle and a version", e.resource)
		}
		switch e.span.Name {
		case "POST /v1/chat/completions":
			server = e.span
		case spanRoute:
			route = e.span
		case spanAttempt:
			attempts = append(attempts, e.span)
		default:
			t.Errorf("unexpected span %q", e.span.Name)
		}
	}
	if server == nil || route == nil || len(attempts) != 2 {
		t.Fatalf("got server=%v route=%v attempts=%d among %d spans", server != nil, route != nil, len(attempts), len(spans))
	}

	// The server span continues the caller's trace.
	if server.Kind != tracepb.Span_SPAN_KIND_SERVER || hex.EncodeToString(server.ParentSpanId) != incomingParent {
		t.Errorf("server span kind %v parent %x, want SERVER under %s", server.Kind, server.ParentSpanId, incomingParent)
	}
	sa := attrMap(server.Attributes)
	for k, want := range map[string]string{
		"http.request.method": "POST", "http.route": "/v1/chat/completions", "http.response.status_code": "200",
		"heddle.request_id": requestID, "heddle.format": "openai_chat", "heddle.org_id": s.actor.OrgID,
		"heddle.key_prefix": s.keyPrefix, "heddle.route.kind": "explicit", "heddle.model": "gpt-5-mini",
		"heddle.provider": "openrouter", "heddle.fallback": "true", "heddle.attempts": "2",
	} {
		if sa[k] != want {
			t.Errorf("server span %s = %q, want %q", k, sa[k], want)
		}
	}

	// The routing span and both attempts are children of the server span.
	for _, sp := range append([]*tracepb.Span{route}, attempts...) {
		if !bytes.Equal(sp.ParentSpanId, server.SpanId) {
			t.Errorf("%s parent = %x, want the server span %x", sp.Name, sp.ParentSpanId, server.SpanId)
		}
		if sp.StartTimeUnixNano < server.StartTimeUnixNano || sp.EndTimeUnixNano > server.EndTimeUnixNano {
			t.Errorf("%s [%d, %d] is outside the server span [%d, %d]", sp.Name, sp.StartTimeUnixNano, sp.EndTimeUnixNano,
				server.StartTimeUnixNano, server.EndTimeUnixNano)
		}
	}
	ra := attrMap(route.Attributes)
	if ra["heddle.route.kind"] != "explicit" || ra["heddle.route.model"] != "gpt-5-mini" || ra["heddle.route.decision"] != "explicit:gpt-5-mini" {
		t.Errorf("routing span attributes = %v", ra)
	}
	if attemptIndex(attempts[0]) > attemptIndex(attempts[1]) {
		attempts[0], attempts[1] = attempts[1], attempts[0]
	}
	first, second := attrMap(attempts[0].Attributes), attrMap(attempts[1].Attributes)
	for name, c := range map[string]struct {
		got  map[string]string
		want map[string]string
	}{
		"first attempt": {first, map[string]string{"heddle.attempt.index": "0", "heddle.provider": "openai", "heddle.model": "gpt-5-mini",
			"heddle.attempt.outcome": "failed", "heddle.attempt.reason": "upstream_5xx", "http.response.status_code": "503",
			"heddle.attempt.purpose": "main"}},
		"second attempt": {second, map[string]string{"heddle.attempt.index": "1", "heddle.provider": "openrouter",
			"heddle.upstream_model": "openai/gpt-5-mini", "heddle.attempt.outcome": "served", "http.response.status_code": "200"}},
	} {
		for k, want := range c.want {
			if c.got[k] != want {
				t.Errorf("%s %s = %q, want %q", name, k, c.got[k], want)
			}
		}
		if _, ok := c.got["heddle.attempt.ttfb_ms"]; !ok {
			t.Errorf("%s has no time to first byte", name)
		}
	}
	if _, ok := second["heddle.attempt.reason"]; ok {
		t.Errorf("served attempt has a failure reason: %v", second)
	}
	if attempts[0].Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || attempts[1].Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("attempt statuses = %v, %v; want error then not", attempts[0].Status, attempts[1].Status)
	}
	if attempts[0].EndTimeUnixNano > attempts[1].StartTimeUnixNano {
		t.Errorf("second attempt starts (%d) before the first ends (%d)", attempts[1].StartTimeUnixNano, attempts[0].EndTimeUnixNano)
	}

	// Upstream requests carry the trace (server span as parent), not the caller's tracestate.
	for i, u := range ups {
		want := "00-" + incomingTrace + "-" + hex.EncodeToString(server.SpanId) + "-01"
		if got := u.Header.Get("Traceparent"); got != want {
			t.Errorf("upstream request %d traceparent = %q, want %q", i, got, want)
		}
		if ts := u.Header.Get("Tracestate"); ts != "" {
			t.Errorf("upstream request %d got the caller's tracestate %q", i, ts)
		}
	}

	// A stream with no traceparent starts its own trace and ends with the stream.
	s.up.Script("", dispatchtest.OK("streamed")) // whichever binding dispatch now prefers
	resp, got = post(t, s, `{"model":"gpt-5-mini","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"`+secretPrompt+`"}]}`, nil)
	if resp.StatusCode != 200 || !strings.Contains(got, "streamed") {
		t.Fatalf("stream: %d %s", resp.StatusCode, got)
	}
	streamID := resp.Header.Get("x-heddle-request-id")
	flush(t, s)
	var stream *tracepb.Span
	var streamChildren int
	for _, e := range rcv.spans() {
		if e.span.Name == "POST /v1/chat/completions" && attrMap(e.span.Attributes)["heddle.request_id"] == streamID {
			stream = e.span
		}
	}
	if stream == nil {
		t.Fatal("no server span for the stream")
	}
	if len(stream.ParentSpanId) != 0 || hex.EncodeToString(stream.TraceId) == incomingTrace {
		t.Errorf("stream span continues a trace it was not given: parent %x trace %x", stream.ParentSpanId, stream.TraceId)
	}
	for _, e := range rcv.spans() {
		if bytes.Equal(e.span.ParentSpanId, stream.SpanId) {
			streamChildren++
			if e.span.EndTimeUnixNano > stream.EndTimeUnixNano {
				t.Errorf("%s ends after the stream's server span", e.span.Name)
			}
		}
	}
	if st := attrMap(stream.Attributes); st["http.response.status_code"] != "200" || st["heddle.stream"] != "true" || streamChildren != 2 {
		t.Errorf("stream span: status %q stream %q children %d, want 200, true, 2 (route, attempt)",
			st["http.response.status_code"], st["heddle.stream"], streamChildren)
	}

	// The exports carried the configured headers, and no prompt text, key or secret.
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.bad) > 0 {
		t.Errorf("malformed exports: %v", rcv.bad)
	}
	for i, raw := range rcv.raw {
		if got := rcv.headers[i].Get("Authorization"); got != "Bearer otlp-token-1" {
			t.Errorf("export %d authorization = %q", i, got)
		}
		for _, leak := range []string{secretPrompt, "violet pelican", s.key, "sk-or-trace-secret", "sk-bench-secret"} {
			if bytes.Contains(raw, []byte(leak)) {
				t.Errorf("export %d contains %q", i, leak)
			}
		}
	}
}

func attemptIndex(s *tracepb.Span) string { return attrMap(s.Attributes)["heddle.attempt.index"] }

// TestTracingRoutedDecision checks the routing span of an "auto" request:
// the router's alpha, its choice and the route kind.
func TestTracingRoutedDecision(t *testing.T) {
	s, rcv := tracedStack(t, map[string]string{"HEDDLE_DEFAULT_ALPHA": "0.35"})
	resp, got := post(t, s, `{"model":"auto","messages":[{"role":"user","content":"`+secretPrompt+`"}]}`, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("auto: %d %s", resp.StatusCode, got)
	}
	flush(t, s)
	var route *tracepb.Span
	for _, e := range rcv.spans() {
		if e.span.Name == spanRoute {
			route = e.span
		}
	}
	if route == nil {
		t.Fatal("no routing span")
	}
	ra := attrMap(route.Attributes)
	if ra["heddle.route.kind"] != "routed" || ra["heddle.route.alpha"] != "0.35" || ra["heddle.route.model"] != resp.Header.Get("x-heddle-model") ||
		!strings.HasPrefix(ra["heddle.route.decision"], "routed:") || ra["heddle.route.bundle"] == "" {
		t.Errorf("routing span attributes = %v (served %q)", ra, resp.Header.Get("x-heddle-model"))
	}
	if route.EndTimeUnixNano <= route.StartTimeUnixNano {
		t.Errorf("routing span has no duration: [%d, %d]", route.StartTimeUnixNano, route.EndTimeUnixNano)
	}
}

// TestTracingSampleRatio: with ratio 0 a new trace is not recorded, but a
// caller's sampled traceparent is still continued (parent-based sampling).
func TestTracingSampleRatio(t *testing.T) {
	s, rcv := tracedStack(t, map[string]string{"HEDDLE_TRACE_SAMPLE_RATIO": "0"})
	if resp, got := post(t, s, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"hi"}]}`, nil); resp.StatusCode != 200 {
		t.Fatalf("unsampled: %d %s", resp.StatusCode, got)
	}
	flush(t, s)
	if n := len(rcv.spans()); n != 0 {
		t.Fatalf("ratio 0 exported %d spans of an unsampled request", n)
	}
	// The unsampled trace context still travels upstream, flagged not sampled.
	if tp := s.up.Requests()[0].Header.Get("Traceparent"); !strings.HasSuffix(tp, "-00") {
		t.Errorf("unsampled upstream traceparent = %q, want flags 00", tp)
	}
	// A caller's "sampled" flag does not force an export at ratio 0; its
	// trace id still travels upstream (not sampled).
	resp, got := post(t, s, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"hi again"}]}`,
		map[string]string{"traceparent": "00-" + incomingTrace + "-" + incomingParent + "-01"})
	if resp.StatusCode != 200 {
		t.Fatalf("sampled parent: %d %s", resp.StatusCode, got)
	}
	flush(t, s)
	if n := len(rcv.spans()); n != 0 {
		t.Fatalf("a caller's sampled flag forced %d spans out at ratio 0", n)
	}
	if tp := s.up.Requests()[1].Header.Get("Traceparent"); !strings.Contains(tp, incomingTrace) || !strings.HasSuffix(tp, "-00") {
		t.Errorf("upstream traceparent = %q, want the caller's trace, not sampled", tp)
	}
}

// TestTracingOff: with no HEDDLE_OTLP_ENDPOINT nothing is exported, even
// when the standard OTEL_ variables point at a collector, and nothing is
// added to upstream requests.
func TestTracingOff(t *testing.T) {
	rcv := newOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL)
	t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
	s := newStack(t, nil)
	if s.c.tracing != nil {
		t.Fatal("tracing is on without HEDDLE_OTLP_ENDPOINT")
	}
	resp, got := post(t, s, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"hi"}]}`,
		map[string]string{"traceparent": "00-" + incomingTrace + "-" + incomingParent + "-01"})
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, got)
	}
	if tp := s.up.Requests()[0].Header.Get("Traceparent"); tp != "" {
		t.Errorf("upstream got traceparent %q with tracing off", tp)
	}
	if n := rcv.exports(); n != 0 {
		t.Errorf("the collector received %d exports with tracing off", n)
	}
}

func TestTracesURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:4318":              "http://127.0.0.1:4318/v1/traces",
		"http://127.0.0.1:4318/":             "http://127.0.0.1:4318/v1/traces",
		"https://otel.example.com/otlp":      "https://otel.example.com/otlp/v1/traces",
		"https://otel.example.com/v1/traces": "https://otel.example.com/v1/traces",
	} {
		if got := tracesURL(in); got != want {
			t.Errorf("tracesURL(%q) = %q, want %q", in, got, want)
		}
	}
}

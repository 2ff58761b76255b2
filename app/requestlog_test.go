package app

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"regexp"
	"testing"

	"github.com/heddle-gw/heddle/analytics"
)

// TestRequestLog: one JSON line per request with its ids, route, status and
// error code (warn for a 5xx), and the row still reaches the store.
func TestRequestLog(t *testing.T) {
	var buf bytes.Buffer
	next := &rowsSeen{}
	logger := newLogger(&buf, "info")
	rec := requestLog{next: next, log: logger.With("component", "request"), out: lineOut(logger)}
	rec.RecordRequest(analytics.Request{RequestID: "r-1", OrgID: "o-1", KeyID: "k-1", Format: "openai_chat",
		RequestedModel: "gpt-5", ServedModel: "gpt-5-mini", Provider: "openai", RouteKind: "routed", Status: 502,
		ErrorCode: "dispatch.attempts_exhausted", LatencyMs: 12.5, Attempts: 3})
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("log line %q: %v", buf.String(), err)
	}
	for k, want := range map[string]any{"msg": "request", "level": "WARN", "component": "request", "request_id": "r-1",
		"org_id": "o-1", "key_id": "k-1", "served_model": "gpt-5-mini", "route": "routed", "status": 502.0,
		"error_code": "dispatch.attempts_exhausted", "attempts": 3.0, "latency_ms": 12.5} {
		if line[k] != want {
			t.Errorf("%s = %v, want %v (line %s)", k, line[k], want, buf.String())
		}
	}
	if len(next.reqs) != 1 || next.reqs[0].RequestID != "r-1" {
		t.Errorf("the row was not forwarded: %+v", next.reqs)
	}

	buf.Reset()
	quiet := newLogger(&buf, "warn")
	requestLog{next: next, log: quiet, out: lineOut(quiet)}.RecordRequest(analytics.Request{RequestID: "r-2", Status: 200})
	if buf.Len() != 0 || len(next.reqs) != 2 {
		t.Errorf("an info line at level warn: %q (rows forwarded %d)", buf.String(), len(next.reqs))
	}
}

// TestRequestLineIsSlogs: the hand-built line is byte for byte the line
// slog's JSON handler writes for the same record (bar the time), for text
// that needs escaping, invalid UTF-8 and floats of every form.
func TestRequestLineIsSlogs(t *testing.T) {
	stamp := regexp.MustCompile(`^\{"time":"[^"]+",`)
	for _, q := range []analytics.Request{
		{RequestID: "r-1", OrgID: `o"1\`, KeyID: "k\x01\n\r\t", Format: "<a>&b", RequestedModel: "模型 🚀",
			ServedModel: "bad \xff utf8 \xe2\x80", Provider: "sep \u2028 \u2029", RouteKind: "routed", Stream: true,
			CacheHit: true, Fallback: true, Attempts: 3, Status: 502, ErrorCode: "x", LatencyMs: 12.5, TTFBMs: 1e-7,
			InputTokens: -5, OutputTokens: 1 << 40, CostMicros: 7},
		{RequestID: "r-2", Status: 200, LatencyMs: 1e21, TTFBMs: 123456789.125},
		{RequestID: "r-3", Status: 0, LatencyMs: -0.000001, TTFBMs: 1.5e-300},
		{RequestID: "r-4", Status: 200, LatencyMs: 0.1 + 0.2, TTFBMs: 100},
	} {
		var hand, slogs bytes.Buffer
		logger := newLogger(&hand, "info")
		requestLog{next: &rowsSeen{}, log: logger.With("component", "request"), out: lineOut(logger)}.RecordRequest(q)
		requestLog{next: &rowsSeen{}, log: slog.New(slog.NewJSONHandler(&slogs, nil)).With("component", "request")}.RecordRequest(q)
		h, s := hand.String(), slogs.String()
		if !stamp.MatchString(h) || !stamp.MatchString(s) || stamp.ReplaceAllString(h, "") != stamp.ReplaceAllString(s, "") {
			t.Errorf("request %s:\nhand %s\nslog %s", q.RequestID, h, s)
		}
	}
}

// rowsSeen is the next recorder: it keeps the rows it was given.
type rowsSeen struct{ reqs []analytics.Request }

func (r *rowsSeen) RecordAttempt(analytics.Attempt)   {}
func (r *rowsSeen) RecordRequest(q analytics.Request) { r.reqs = append(r.reqs, q) }

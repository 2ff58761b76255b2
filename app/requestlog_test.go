package app

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/heddle-gw/heddle/analytics"
)

// TestRequestLog: one JSON line per request with its ids, route, status and
// error code (warn for a 5xx), and the row still reaches the store.
func TestRequestLog(t *testing.T) {
	var buf bytes.Buffer
	next := &rowsSeen{}
	rec := requestLog{next: next, log: slog.New(slog.NewJSONHandler(&buf, nil))}
	rec.RecordRequest(analytics.Request{RequestID: "r-1", OrgID: "o-1", KeyID: "k-1", Format: "openai_chat",
		RequestedModel: "gpt-5", ServedModel: "gpt-5-mini", Provider: "openai", RouteKind: "routed", Status: 502,
		ErrorCode: "dispatch.attempts_exhausted", LatencyMs: 12.5, Attempts: 3})
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("log line %q: %v", buf.String(), err)
	}
	for k, want := range map[string]any{"msg": "request", "level": "WARN", "request_id": "r-1", "org_id": "o-1", "key_id": "k-1",
		"served_model": "gpt-5-mini", "route": "routed", "status": 502.0, "error_code": "dispatch.attempts_exhausted",
		"attempts": 3.0, "latency_ms": 12.5} {
		if line[k] != want {
			t.Errorf("%s = %v, want %v (line %s)", k, line[k], want, buf.String())
		}
	}
	if len(next.reqs) != 1 || next.reqs[0].RequestID != "r-1" {
		t.Errorf("the row was not forwarded: %+v", next.reqs)
	}
}

// rowsSeen is the next recorder: it keeps the rows it was given.
type rowsSeen struct{ reqs []analytics.Request }

func (r *rowsSeen) RecordAttempt(analytics.Attempt)   {}
func (r *rowsSeen) RecordRequest(q analytics.Request) { r.reqs = append(r.reqs, q) }

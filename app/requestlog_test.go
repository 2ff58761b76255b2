package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/internal/testwait"
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

// writes counts the writes it gets and keeps what they wrote.
type writes struct {
	mu    sync.Mutex
	n     int
	lines bytes.Buffer
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n++
	return w.lines.Write(p)
}

func (w *writes) seen() (int, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n, w.lines.String()
}

// TestRequestLinesBuffered: with request lines buffered (as serve runs), a
// thousand request lines take a few writes instead of a thousand, another
// log line writes the buffered ones first (order kept), a line waits no
// longer than the flush interval, and close writes the rest; no line is
// lost or torn.
func TestRequestLinesBuffered(t *testing.T) {
	out := &writes{}
	logger := newLogger(out, "info")
	lw := lineOut(logger)
	lw.bufferRequests(16<<10, time.Hour)
	rec := requestLog{next: &rowsSeen{}, log: logger.With("component", "request"), out: lw}
	for i := range 1000 {
		rec.RecordRequest(analytics.Request{RequestID: fmt.Sprintf("r-%d", i), Status: 200})
	}
	n, _ := out.seen()
	if n == 0 || n > 1000*450/(16<<10)+1 {
		t.Errorf("1000 request lines took %d writes, want a few (one per 16 KiB)", n)
	}
	logger.Info("other line")
	n, text := out.seen()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != 1001 || !strings.Contains(lines[999], `"request_id":"r-999"`) || !strings.Contains(lines[1000], `"msg":"other line"`) {
		t.Fatalf("after another log line: %d lines, last two %q", len(lines), lines[max(0, len(lines)-2):])
	}
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("line %d is not JSON: %q", i, l)
		}
	}

	rec.RecordRequest(analytics.Request{RequestID: "r-last", Status: 200})
	if m, _ := out.seen(); m != n {
		t.Errorf("a request line was written at once (%d writes, was %d)", m, n)
	}
	lw.close()
	if _, text := out.seen(); !strings.HasSuffix(text, "\n") || !strings.Contains(text[strings.LastIndex(text[:len(text)-1], "\n"):], `"r-last"`) {
		t.Errorf("close did not write the buffered line: %q", text[max(0, len(text)-200):])
	}

	timed := &writes{}
	tl := newLogger(timed, "info")
	lineOut(tl).bufferRequests(16<<10, 5*time.Millisecond)
	requestLog{next: &rowsSeen{}, log: tl, out: lineOut(tl)}.RecordRequest(analytics.Request{RequestID: "r-timed", Status: 200})
	testwait.Until(t, 10*time.Second, "the buffered line written by the interval", func() bool {
		_, text := timed.seen()
		return strings.Contains(text, `"r-timed"`)
	})
}

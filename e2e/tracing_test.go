package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// collector is a minimal OTLP/HTTP trace receiver: it keeps every span and
// the raw export bytes.
type collector struct {
	mu    sync.Mutex
	raw   [][]byte
	spans []*tracepb.Span
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err == nil && r.Header.Get("Content-Encoding") == "gzip" {
		var zr *gzip.Reader
		if zr, err = gzip.NewReader(bytes.NewReader(body)); err == nil {
			body, err = io.ReadAll(zr)
		}
	}
	msg := &coltracepb.ExportTraceServiceRequest{}
	if err != nil || r.URL.Path != "/v1/traces" || proto.Unmarshal(body, msg) != nil {
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.raw = append(c.raw, body)
	for _, rs := range msg.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			c.spans = append(c.spans, ss.Spans...)
		}
	}
	c.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (c *collector) snapshot() ([]*tracepb.Span, []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*tracepb.Span(nil), c.spans...), bytes.Join(c.raw, nil)
}

func spanAttr(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			v := kv.Value
			switch {
			case v.GetStringValue() != "":
				return v.GetStringValue()
			case v.GetIntValue() != 0:
				return strconv.FormatInt(v.GetIntValue(), 10)
			}
		}
	}
	return ""
}

// TestTracing: the built binary with HEDDLE_OTLP_ENDPOINT exports a chat
// completion's trace: a server span continuing the caller's traceparent, a
// routing span and an attempt span under it; the upstream receives the
// trace context; no prompt text, key or provider secret is in the export.
func TestTracing(t *testing.T) {
	col := &collector{}
	srv := httptest.NewServer(col)
	t.Cleanup(srv.Close)
	up := dispatchtest.NewUpstream(t)
	up.Script("gpt-5-mini", dispatchtest.OK("traced answer"))
	in := startHeddle(t, map[string]string{"HEDDLE_OTLP_ENDPOINT": srv.URL})
	tn := signUp(t, in.URL, "tracing@example.com", "openai", fakeSecret, up.URL+"/v1")

	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	const prompt = "a prompt that must never be exported"
	req, _ := http.NewRequest("POST", in.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"gpt-5-mini","messages":[{"role":"user","content":"`+prompt+`"}]}`))
	req.Header.Set("Authorization", "Bearer "+tn.Key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("traceparent", "00-"+traceID+"-"+parentID+"-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("chat: %d", resp.StatusCode)
	}
	if reqs := up.Requests(); len(reqs) != 1 || !strings.Contains(reqs[0].Header.Get("traceparent"), traceID) {
		t.Fatalf("the upstream got no traceparent of the caller's trace: %v", up.Requests())
	}

	in.stop(t) // shutdown flushes the batch processor
	spans, raw := col.snapshot()
	var server, route, attempt *tracepb.Span
	for _, s := range spans {
		if hex.EncodeToString(s.TraceId) != traceID {
			continue
		}
		switch {
		case s.Kind == tracepb.Span_SPAN_KIND_SERVER:
			server = s
		case s.Name == "heddle.route":
			route = s
		case s.Name == "heddle.attempt":
			attempt = s
		}
	}
	if server == nil || route == nil || attempt == nil {
		names := []string{}
		for _, s := range spans {
			names = append(names, s.Name+"@"+hex.EncodeToString(s.TraceId))
		}
		t.Fatalf("spans of the caller's trace: server %v route %v attempt %v (all: %v)", server != nil, route != nil, attempt != nil, names)
	}
	if hex.EncodeToString(server.ParentSpanId) != parentID {
		t.Errorf("the server span's parent is %x, want the caller's %s", server.ParentSpanId, parentID)
	}
	for _, s := range []*tracepb.Span{route, attempt} {
		if !bytes.Equal(s.ParentSpanId, server.SpanId) {
			t.Errorf("%s is not a child of the server span", s.Name)
		}
	}
	if got := spanAttr(attempt, "heddle.provider"); got != "openai" {
		t.Errorf("attempt provider %q", got)
	}
	if got := spanAttr(route, "heddle.route.model"); got != "gpt-5-mini" {
		t.Errorf("routing span model %q", got)
	}
	for _, secret := range []string{prompt, tn.Key, fakeSecret, "traced answer"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the exported spans contain %q", secret)
		}
	}
	t.Logf("%d spans exported; server %q, route %q, attempt %q", len(spans), server.Name, route.Name, attempt.Name)
}

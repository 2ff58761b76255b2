package app

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an in-process OTLP/HTTP collector: it decodes every
// ExportTraceServiceRequest posted to /v1/traces and keeps the raw bytes.
type otlpReceiver struct {
	URL string

	mu      sync.Mutex
	raw     [][]byte
	headers []http.Header
	reqs    []*coltracepb.ExportTraceServiceRequest
	bad     []string
}

func newOTLPReceiver(t testing.TB) *otlpReceiver {
	r := &otlpReceiver{}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

func (r *otlpReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err == nil && req.Header.Get("Content-Encoding") == "gzip" {
		var zr *gzip.Reader
		if zr, err = gzip.NewReader(bytes.NewReader(body)); err == nil {
			body, err = io.ReadAll(zr)
		}
	}
	msg := &coltracepb.ExportTraceServiceRequest{}
	if err == nil {
		err = proto.Unmarshal(body, msg)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" || err != nil {
		r.bad = append(r.bad, req.Method+" "+req.URL.Path+" "+req.Header.Get("Content-Type")+" "+errString(err))
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
	r.raw = append(r.raw, body)
	r.headers = append(r.headers, req.Header.Clone())
	r.reqs = append(r.reqs, msg)
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// exported is one received span with its resource.
type exported struct {
	span     *tracepb.Span
	resource map[string]string
}

func (r *otlpReceiver) spans() []exported {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []exported
	for _, req := range r.reqs {
		for _, rs := range req.ResourceSpans {
			res := attrMap(rs.GetResource().GetAttributes())
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					out = append(out, exported{span: s, resource: res})
				}
			}
		}
	}
	return out
}

func (r *otlpReceiver) exports() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.raw) + len(r.bad)
}

// attrMap renders attribute values as strings (ints and floats as Go would
// print them) for compact assertions.
func attrMap(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		v := kv.GetValue()
		switch x := v.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.Key] = x.StringValue
		case *commonpb.AnyValue_IntValue:
			m[kv.Key] = strconv.FormatInt(x.IntValue, 10)
		case *commonpb.AnyValue_BoolValue:
			m[kv.Key] = map[bool]string{true: "true", false: "false"}[x.BoolValue]
		case *commonpb.AnyValue_DoubleValue:
			m[kv.Key] = strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
		}
	}
	return m
}

package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"runtime/debug"
	"strings"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// tracing exports OpenTelemetry traces of data-plane requests over OTLP/HTTP
// (protobuf). It exists only when HEDDLE_OTLP_ENDPOINT is set: a nil
// *tracing is "off", and every wrapper it offers then returns what it was
// given, so an untraced gateway runs exactly the code it ran before.
//
// The domain packages (gateway, dispatch) know nothing of OpenTelemetry.
// The server span starts at the HTTP edge (a fiber middleware), and the
// child spans are built here from what the pipeline already reports: the
// router's decision (a wrapped gateway.Router), the ordered dispatch attempt
// events (a wrapped dispatch.Sink, with each event's own start and end
// times) and the request record (a wrapped gateway.Recorder). They are tied
// to the server span by the turn's request id (see otel_spans.go).
type tracing struct {
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
	prop   propagation.TraceContext // W3C traceparent in and out
	// turns maps the request id of each recorded turn in flight to its
	// *turnSpan, from httpapi's Begin hook until the response is done.
	turns sync.Map
}

// newTracing builds the tracer provider when cfg names an OTLP endpoint, or
// returns nil (tracing off). Nothing is sent until the first batch of spans.
func newTracing(ctx context.Context, cfg Config, logger *slog.Logger) (*tracing, error) {
	if cfg.OTLPEndpoint == "" {
		return nil, nil
	}
	exp, err := otlptracehttp.New(ctx,
		otlptracehttp.WithEndpointURL(tracesURL(cfg.OTLPEndpoint)),
		otlptracehttp.WithHeaders(cfg.OTLPHeaders))
	if err != nil {
		return nil, fmt.Errorf("app: OTLP exporter: %w", err)
	}
	res := resource.NewWithAttributes(semconv.SchemaURL,
		semconv.ServiceName("heddle"), semconv.ServiceVersion(buildVersion()))
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		// A caller's traceparent is continued, but its "sampled" flag does
		// not force an export: the operator's ratio decides for remote
		// parents too (a tenant cannot flood the operator's collector).
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(cfg.TraceSampleRatio),
			sdktrace.WithRemoteParentSampled(sdktrace.TraceIDRatioBased(cfg.TraceSampleRatio)))),
	)
	// The SDK reports export failures through its process-wide handler;
	// send them to our JSON log instead of its default stderr logger.
	elog := logger.With("component", "otel")
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		elog.Warn("trace export failed", "err", err)
	}))
	return &tracing{tp: tp, tracer: tp.Tracer("github.com/heddle-gw/heddle")}, nil
}

// shutdown flushes the spans still queued and stops the exporter; it is safe
// to call twice and on a nil *tracing.
func (t *tracing) shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	if err := t.tp.Shutdown(ctx); err != nil {
		return fmt.Errorf("app: trace shutdown: %w", err)
	}
	return nil
}

// tracesURL turns the configured base URL into the traces endpoint: like
// OTEL_EXPORTER_OTLP_ENDPOINT, "/v1/traces" is appended to its path unless
// the path already ends with it.
func tracesURL(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base // LoadConfig rejected unparsable URLs already
	}
	if !strings.HasSuffix(u.Path, "/v1/traces") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
	}
	return u.String()
}

// buildVersion is the module version the binary was built from, else its
// VCS revision, else "devel".
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return s.Value[:12]
		}
	}
	return "devel"
}

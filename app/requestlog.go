package app

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/internal/jsonw"
)

// requestLog writes one structured line per finished request (SPEC 11) from
// the same request record analytics stores, then forwards every row: ids,
// models, route, status, error code, latency, tokens and cost, never prompt
// or response text (the record carries none) nor a key's secret (only its
// id). A request that failed on Heddle's side (status >= 500) logs at warn.
// With out (the output of a logger from newLogger) the line is appended by
// hand, the same JSON slog writes (requestlog_test.go compares them), with
// "component":"request" as its only logger attribute; without, through log.
type requestLog struct {
	next gateway.Recorder
	log  *slog.Logger
	out  *lineWriter
}

func (r requestLog) RecordAttempt(a analytics.Attempt) { r.next.RecordAttempt(a) }

func (r requestLog) RecordRequest(q analytics.Request) {
	level := slog.LevelInfo
	if q.Status >= 500 {
		level = slog.LevelWarn
	}
	switch {
	case !r.log.Enabled(context.Background(), level):
	case r.out != nil:
		bp := lineBufs.Get().(*[]byte)
		*bp = appendRequestLine((*bp)[:0], time.Now(), level, q)
		r.out.writeLine(*bp)
		lineBufs.Put(bp)
	default:
		r.log.LogAttrs(context.Background(), level, "request",
			slog.String("request_id", q.RequestID), slog.String("org_id", q.OrgID), slog.String("key_id", q.KeyID),
			slog.String("format", q.Format), slog.String("requested_model", q.RequestedModel),
			slog.String("served_model", q.ServedModel), slog.String("provider", q.Provider), slog.String("route", q.RouteKind),
			slog.Bool("stream", q.Stream), slog.Bool("cache_hit", q.CacheHit), slog.Bool("fallback", q.Fallback),
			slog.Int("attempts", q.Attempts), slog.Int("status", q.Status), slog.String("error_code", q.ErrorCode),
			slog.Float64("latency_ms", q.LatencyMs), slog.Float64("ttfb_ms", q.TTFBMs),
			slog.Int64("input_tokens", q.InputTokens), slog.Int64("output_tokens", q.OutputTokens),
			slog.Int64("cost_micros", q.CostMicros))
	}
	r.next.RecordRequest(q)
}

// lineBufs holds the buffers request lines are built in.
var lineBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// appendRequestLine appends q's log line, fields in the order of the
// LogAttrs call above.
func appendRequestLine(b []byte, now time.Time, level slog.Level, q analytics.Request) []byte {
	b = append(b, `{"time":"`...)
	b = now.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"`...)
	b = append(b, level.String()...)
	b = append(b, `","msg":"request","component":"request"`...)
	str := func(k, v string) {
		b = append(b, `,"`...)
		b = append(b, k...)
		b = append(b, `":`...)
		b = jsonw.AppendString(b, v)
	}
	num := func(k string, v int64) {
		b = append(b, `,"`...)
		b = append(b, k...)
		b = append(b, `":`...)
		b = strconv.AppendInt(b, v, 10)
	}
	flag := func(k string, v bool) {
		b = append(b, `,"`...)
		b = append(b, k...)
		b = append(b, `":`...)
		b = strconv.AppendBool(b, v)
	}
	float := func(k string, v float64) {
		b = append(b, `,"`...)
		b = append(b, k...)
		b = append(b, `":`...)
		b = jsonw.AppendFloat(b, v)
	}
	str("request_id", q.RequestID)
	str("org_id", q.OrgID)
	str("key_id", q.KeyID)
	str("format", q.Format)
	str("requested_model", q.RequestedModel)
	str("served_model", q.ServedModel)
	str("provider", q.Provider)
	str("route", q.RouteKind)
	flag("stream", q.Stream)
	flag("cache_hit", q.CacheHit)
	flag("fallback", q.Fallback)
	num("attempts", int64(q.Attempts))
	num("status", int64(q.Status))
	str("error_code", q.ErrorCode)
	float("latency_ms", q.LatencyMs)
	float("ttfb_ms", q.TTFBMs)
	num("input_tokens", q.InputTokens)
	num("output_tokens", q.OutputTokens)
	num("cost_micros", q.CostMicros)
	return append(b, "}\n"...)
}

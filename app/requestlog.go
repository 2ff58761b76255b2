package app

import (
	"context"
	"log/slog"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/gateway"
)

// requestLog writes one structured line per finished request (SPEC 11) from
// the same request record analytics stores, then forwards every row: ids,
// models, route, status, error code, latency, tokens and cost, never prompt
// or response text (the record carries none) nor a key's secret (only its
// id). A request that failed on Heddle's side (status >= 500) logs at warn.
type requestLog struct {
	next gateway.Recorder
	log  *slog.Logger
}

func (r requestLog) RecordAttempt(a analytics.Attempt) { r.next.RecordAttempt(a) }

func (r requestLog) RecordRequest(q analytics.Request) {
	level := slog.LevelInfo
	if q.Status >= 500 {
		level = slog.LevelWarn
	}
	r.log.LogAttrs(context.Background(), level, "request",
		slog.String("request_id", q.RequestID), slog.String("org_id", q.OrgID), slog.String("key_id", q.KeyID),
		slog.String("format", q.Format), slog.String("requested_model", q.RequestedModel),
		slog.String("served_model", q.ServedModel), slog.String("provider", q.Provider), slog.String("route", q.RouteKind),
		slog.Bool("stream", q.Stream), slog.Bool("cache_hit", q.CacheHit), slog.Bool("fallback", q.Fallback),
		slog.Int("attempts", q.Attempts), slog.Int("status", q.Status), slog.String("error_code", q.ErrorCode),
		slog.Float64("latency_ms", q.LatencyMs), slog.Float64("ttfb_ms", q.TTFBMs),
		slog.Int64("input_tokens", q.InputTokens), slog.Int64("output_tokens", q.OutputTokens),
		slog.Int64("cost_micros", q.CostMicros))
	r.next.RecordRequest(q)
}

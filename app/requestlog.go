package app

import (
	"context"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/gateway"
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
		r.out.Write(*bp) //nolint:errcheck // as slog's handler, a failed log write is not the request's failure
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
		b = appendJSONString(b, v)
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
		b = appendJSONFloat(b, v)
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

// appendJSONFloat appends f as encoding/json (and so slog) writes it; NaN
// and infinities, which JSON cannot hold, as null.
func appendJSONFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // e-09 to e-9, as encoding/json
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendJSONString appends s quoted as slog's JSON handler does: control
// characters, quote and backslash escaped, invalid UTF-8 as U+FFFD, U+2028
// and U+2029 escaped, nothing else (no HTML escaping).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

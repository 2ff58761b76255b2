package analyticstest

import (
	"fmt"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

// T0 is the start of the fixture: three UTC days from 2026-11-27 10:00.
var T0 = time.Date(2026, 11, 27, 10, 0, 0, 123_000_000, time.UTC)

const day = 24 * time.Hour

// Organisations of the fixture. OrgA and OrgB share request ids, key-like
// names and users, so a query that forgets the org filter is caught.
const (
	OrgA = "org-a"
	OrgB = "org-b"
	OrgC = "org-c" // has no rows
	OrgP = "org-p" // 100 requests for paging and percentiles
)

func req(ev, reqID string, at time.Duration, key, user, requested, served, route string, status int, code string,
	latency, ttfb float64, cost, base, in, out int64, attempts int, cacheHit bool) analytics.Request {
	return analytics.Request{
		EventID: ev, Time: T0.Add(at), RequestID: reqID, OrgID: OrgA, KeyID: key, User: user,
		Format: "openai-chat", RequestedModel: requested, ServedModel: served, RouteKind: route,
		Status: status, ErrorCode: code, LatencyMs: latency, TTFBMs: ttfb, CostMicros: cost,
		BaselineMicros: base, SavingsMicros: base - cost, InputTokens: in, OutputTokens: out,
		Attempts: attempts, CacheHit: cacheHit,
	}
}

// OrgARequests are seven requests over three days. RA6 and RA7 share a
// millisecond; RA5 has negative savings; RA3 is a cache hit; RA4 and RA6
// failed.
func OrgARequests() []analytics.Request {
	return []analytics.Request{
		req("ra-01", "req-1", 0, "key-1", "alice", "gpt-5", "gpt-5-mini", "routed", 200, "", 100, 40, 1000, 5000, 100, 50, 1, false),
		req("ra-02", "req-2", time.Hour, "key-1", "alice", "claude-sonnet", "claude-sonnet", "explicit", 200, "", 200, 0, 3000, 3000, 200, 80, 2, false),
		req("ra-03", "req-3", 2*time.Hour, "key-2", "bob", "auto", "gpt-5-mini", "routed", 200, "", 10, 5, 0, 2000, 0, 0, 0, true),
		req("ra-04", "req-4", day, "key-2", "bob", "gpt-5", "", "explicit", 502, "dispatch.attempts_exhausted", 900, 0, 0, 0, 0, 0, 3, false),
		req("ra-05", "req-5", day+time.Hour, "key-1", "", "gpt-5", "gpt-5", "pinned", 200, "", 300, 120, 6000, 5000, 300, 120, 1, false),
		req("ra-06", "req-6", 2*day, "key-1", "alice", "claude-sonnet", "", "routed", 429, "tenancy.rate_limited", 1, 0, 0, 0, 0, 0, 0, false),
		req("ra-07", "req-7", 2*day, "key-2", "carol", "auto", "gpt-5-mini", "routed", 200, "", 50, 20, 500, 4000, 50, 20, 1, false),
	}
}

func att(org, ev, reqID, op string, idx int, at time.Duration, outcome, reason string, status int, cost int64) analytics.Attempt {
	return analytics.Attempt{
		EventID: ev, Time: T0.Add(at), OrgID: org, KeyID: "key-1", RequestID: reqID, OperationID: op,
		Purpose: "main", AttemptIndex: idx, Model: "gpt-5-mini", Provider: "openai", Upstream: "gpt-5-mini",
		Outcome: outcome, Reason: reason, Status: status, CostMicros: cost, LatencyMs: 10,
	}
}

// OrgAAttempts lists org A's attempts in a scrambled order. req-2 ran two
// operations: "op-z" first (a failure, then a success) and "op-a" after it,
// so the timeline's operation order is by start time, not by id. req-8 has
// attempts but no request row.
func OrgAAttempts() []analytics.Attempt {
	ms := time.Millisecond
	return []analytics.Attempt{
		att(OrgA, "aa-04", "req-2", "op-a", 0, time.Hour+500*ms, "served", "", 200, 100),
		att(OrgA, "aa-03", "req-2", "op-z", 1, time.Hour+300*ms, "served", "", 200, 2900),
		att(OrgA, "aa-02", "req-2", "op-z", 0, time.Hour, "failed", "upstream_5xx", 503, 7),
		att(OrgA, "aa-01", "req-1", "op-1", 0, 0, "served", "", 200, 1000),
		att(OrgA, "aa-07", "req-4", "op-1", 2, day+2*ms, "skipped", "provider_not_configured", 0, 0),
		att(OrgA, "aa-05", "req-4", "op-1", 0, day, "failed", "upstream_rate_limited", 429, 0),
		att(OrgA, "aa-06", "req-4", "op-1", 1, day+ms, "failed", "upstream_5xx", 500, 5),
		att(OrgA, "aa-08", "req-5", "op-1", 0, day+time.Hour, "served", "", 200, 6000),
		att(OrgA, "aa-10", "req-7", "op-1", 0, 2*day, "served", "", 200, 500),
		att(OrgA, "aa-09", "req-8", "op-1", 0, 2*day+time.Hour, "served", "", 200, 0),
	}
}

// OrgBRequests reuse org A's request id "req-1", key names and user names.
func OrgBRequests() []analytics.Request {
	b1 := req("rb-01", "req-1", 0, "key-1", "alice", "gpt-5", "gpt-5", "explicit", 200, "", 5000, 2000, 99999, 99999, 7, 7, 1, false)
	b2 := req("rb-02", "req-9", day, "key-1", "alice", "gpt-5", "", "explicit", 500, "internal.error", 7000, 0, 0, 0, 0, 0, 1, false)
	b1.OrgID, b2.OrgID = OrgB, OrgB
	return []analytics.Request{b1, b2}
}

// OrgBAttempts are org B's attempts, one for the shared request id.
func OrgBAttempts() []analytics.Attempt {
	return []analytics.Attempt{
		att(OrgB, "ab-01", "req-1", "op-1", 0, 0, "failed", "upstream_auth", 401, 0),
		att(OrgB, "ab-02", "req-9", "op-1", 0, day, "failed", "upstream_5xx", 500, 0),
	}
}

// OrgPRequests are 100 requests with latencies 1..100 ms (TTFB twice the
// latency for even latencies, else 0), ten per millisecond, in a scrambled
// order.
func OrgPRequests() []analytics.Request {
	out := make([]analytics.Request, 0, 100)
	for k := range 100 {
		i := (k * 37) % 100
		lat := float64(i + 1)
		ttfb := 0.0
		if (i+1)%2 == 0 {
			ttfb = 2 * lat
		}
		out = append(out, analytics.Request{
			EventID: fmt.Sprintf("p-%03d", i), Time: T0.Add(time.Duration(i/10) * time.Millisecond),
			RequestID: fmt.Sprintf("preq-%03d", i), OrgID: OrgP, KeyID: "key-p", RouteKind: "routed",
			Status: 200, LatencyMs: lat, TTFBMs: ttfb, CostMicros: 1,
		})
	}
	return out
}

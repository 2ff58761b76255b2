package app

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/heddle-gw/heddle/admission"
	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/llm"
)

// metrics holds Heddle's Prometheus collectors. Label values are bounded:
// formats, catalog models and providers (anything else is "other"), route
// kinds, outcomes and the closed failure vocabulary; never an organisation,
// key or request id.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	attempts *prometheus.CounterVec
	latency  *prometheus.HistogramVec // whole request, by format, provider, model, route, outcome
	ttfb     *prometheus.HistogramVec // time to the first byte sent to the caller
	upstream *prometheus.HistogramVec // one upstream attempt, by provider, model, outcome
	tokens   *prometheus.CounterVec
	cost     *prometheus.CounterVec
	cacheHit *prometheus.CounterVec
	refusals *prometheus.CounterVec
	circuit  *prometheus.GaugeVec
	capWaits *prometheus.HistogramVec // waits for a concurrency slot (dispatch.Deps.CapWait)
	// stale and staleMicros count credit holds the janitor settled at their
	// reservation (their call's outcome was lost).
	stale, staleMicros prometheus.Counter
}

// latencyBuckets span 5 ms to about 40 s.
var latencyBuckets = prometheus.ExponentialBuckets(0.005, 2, 14)

func newMetrics() *metrics {
	turn := []string{"format", "provider", "model", "route", "outcome"}
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "heddle_requests_total", Help: "Data-plane requests by wire format, status, error code and route.",
		}, []string{"format", "status", "code", "route"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "heddle_attempts_total", Help: "Upstream attempts by provider, outcome and failure reason.",
		}, []string{"provider", "outcome", "reason"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "heddle_request_duration_seconds", Help: "Gateway request latency (to the end of the response).",
			Buckets: latencyBuckets,
		}, turn),
		ttfb: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "heddle_request_ttfb_seconds", Help: "Time from the request to the first byte of the answer.",
			Buckets: latencyBuckets,
		}, turn),
		upstream: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "heddle_attempt_duration_seconds", Help: "Latency of one upstream attempt (skipped attempts excluded).",
			Buckets: latencyBuckets,
		}, []string{"provider", "model", "outcome"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "heddle_tokens_total", Help: "Tokens of upstream attempts by provider, model and kind (input, output, cache_read, cache_write, reasoning).",
		}, []string{"provider", "model", "kind"}),
		cost: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "heddle_cost_usd_total", Help: "Cost of upstream attempts in US dollars by provider and model.",
		}, []string{"provider", "model"}),
		cacheHit: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "heddle_cache_hits_total", Help: "Requests answered from the response cache, by wire format.",
		}, []string{"format"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "heddle_refusals_total", Help: "Requests refused before or instead of an upstream call: budget, rate_limit, org_cap (a concurrency cap wait ran out: the organisation's, or the binding's with no other target; heddle_cap_wait_seconds{outcome=\"overloaded\"} by scope tells which), circuit_open, limiter_unavailable, budget_unavailable.",
		}, []string{"reason"}),
		capWaits: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "heddle_cap_wait_seconds", Help: "Waits for a concurrency slot that was not free at once, by scope (org, binding) and outcome (acquired, overloaded).",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 14),
		}, []string{"scope", "outcome"}),
		stale: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "heddle_credit_stale_settled_total", Help: "Credit holds settled at their reservation by the janitor because their call's outcome was never recorded (a replica stopped, or its settlement failed for good); each is a ledger debit with the stale reason an operator may refund.",
		}),
		staleMicros: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "heddle_credit_stale_settled_micros_total", Help: "Micro-dollars debited by those stale settlements.",
		}),
		circuit: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "heddle_circuit_open", Help: "1 while the last attempt on a binding (provider, model) was refused by its open circuit breaker, 0 once an attempt went upstream again.",
		}, []string{"provider", "model"}),
	}
	m.reg.MustRegister(m.requests, m.attempts, m.latency, m.ttfb, m.upstream, m.tokens, m.cost, m.cacheHit, m.refusals, m.circuit, m.capWaits, m.stale, m.staleMicros,
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsGC, collectors.MetricsMemory, collectors.MetricsScheduler)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// refusalReasons maps the error codes of refused requests to the
// heddle_refusals_total reason.
var refusalReasons = map[string]string{
	"billing.budget_exceeded":     "budget",
	"billing.unavailable":         "budget_unavailable",
	"tenancy.rate_limited":        "rate_limit",
	"tenancy.limiter_unavailable": "limiter_unavailable",
	"dispatch.overloaded":         "org_cap",
	"dispatch.circuit_open":       "circuit_open",
}

// observe counts one finished data-plane request.
func (m *metrics) observe(f llm.Format, status int, code string, s gateway.Served) {
	m.requests.WithLabelValues(string(f), strconv.Itoa(status), code, s.Route).Inc()
	if reason, ok := refusalReasons[code]; ok {
		m.refusals.WithLabelValues(reason).Inc()
	}
}

// capWait observes one wait for a concurrency slot (dispatch.Deps.CapWait).
// staleSettled counts stale credit holds the janitor settled.
func (m *metrics) staleSettled(n int, micros int64) {
	m.stale.Add(float64(n))
	m.staleMicros.Add(float64(micros))
}

func (m *metrics) capWait(scope string, waited time.Duration, acquired bool) {
	outcome := "acquired"
	if !acquired {
		outcome = "overloaded"
	}
	m.capWaits.WithLabelValues(scope, outcome).Observe(waited.Seconds())
}

// watchWriter exports the analytics writer's queue, spill and drop counts.
func (m *metrics) watchWriter(stats func() analytics.Stats) {
	gauge := func(name, help string, v func(analytics.Stats) float64) {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help},
			func() float64 { return v(stats()) }))
	}
	gauge("heddle_sink_queue_depth", "Analytics rows queued in memory.", func(s analytics.Stats) float64 { return float64(s.Queued) })
	gauge("heddle_sink_spill_bytes", "Bytes of analytics rows spilled to disk.", func(s analytics.Stats) float64 { return float64(s.SpilledBytes) })
	gauge("heddle_sink_spill_segments", "Analytics spill segment files on disk.", func(s analytics.Stats) float64 { return float64(s.Segments) })
	gauge("heddle_sink_dropped_total", "Analytics rows dropped.", func(s analytics.Stats) float64 { return float64(s.Dropped) })
	gauge("heddle_sink_inserted_total", "Analytics rows inserted into the store.", func(s analytics.Stats) float64 { return float64(s.Inserted) })
	gauge("heddle_sink_insert_failures_total", "Failed analytics insert calls.", func(s analytics.Stats) float64 { return float64(s.Failures) })
	gauge("heddle_sink_journaled_total", "Analytics rows group-committed to the crash journal.", func(s analytics.Stats) float64 { return float64(s.Journaled) })
	gauge("heddle_sink_journal_syncs_total", "Fsyncs of the analytics crash journal (at most one per 50 ms, and one per sealed file).", func(s analytics.Stats) float64 { return float64(s.JournalSyncs) })
	gauge("heddle_sink_journal_errors_total", "Groups of analytics rows the crash journal failed to write.", func(s analytics.Stats) float64 { return float64(s.JournalErrors) })
}

// watchRates exports the key rate-limit counters' sync state: the age of
// the last successful sync with the shared store (checks read that store
// directly, failing closed when they cannot, once it passes
// HEDDLE_SPEND_STALE_AFTER) and the failed syncs.
func (m *metrics) watchRates(stats func() admission.RateStats) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "heddle_ratelimit_sync_age_seconds",
		Help: "Seconds since this replica's key rate-limit counters last synced with the shared store (-1: not yet)."},
		func() float64 {
			if s := stats(); !s.LastSync.IsZero() {
				return time.Since(s.LastSync).Seconds()
			}
			return -1
		}))
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "heddle_ratelimit_sync_failures_total",
		Help: "Failed syncs of the key rate-limit counters with the shared store (Redis, else the app database)."},
		func() float64 { return float64(stats().SyncFailures) }))
}

func (m *metrics) handler() fiber.Handler {
	return adaptor.HTTPHandler(promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
}

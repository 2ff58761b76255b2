package app

import (
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/llm"
)

// metrics holds Heddle's Prometheus collectors.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	attempts *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newMetrics() *metrics {
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
			Buckets: prometheus.ExponentialBuckets(0.005, 2, 14),
		}, []string{"format"}),
	}
	m.reg.MustRegister(m.requests, m.attempts, m.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// observe counts one finished data-plane request.
func (m *metrics) observe(f llm.Format, status int, code string, s gateway.Served) {
	m.requests.WithLabelValues(string(f), strconv.Itoa(status), code, s.Route).Inc()
}

// watchWriter exports the analytics writer's queue, spill and drop counts.
func (m *metrics) watchWriter(stats func() analytics.Stats) {
	gauge := func(name, help string, v func(analytics.Stats) float64) {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help},
			func() float64 { return v(stats()) }))
	}
	gauge("heddle_sink_queue_depth", "Analytics rows queued in memory.", func(s analytics.Stats) float64 { return float64(s.Queued) })
	gauge("heddle_sink_spill_bytes", "Bytes of analytics rows spilled to disk.", func(s analytics.Stats) float64 { return float64(s.SpilledBytes) })
	gauge("heddle_sink_dropped_total", "Analytics rows dropped.", func(s analytics.Stats) float64 { return float64(s.Dropped) })
	gauge("heddle_sink_inserted_total", "Analytics rows inserted into the store.", func(s analytics.Stats) float64 { return float64(s.Inserted) })
}

func (m *metrics) handler() fiber.Handler {
	return adaptor.HTTPHandler(promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
}

// countingRecorder counts attempts in Prometheus and forwards every row.
type countingRecorder struct {
	next gateway.Recorder
	m    *metrics
}

func (r countingRecorder) RecordAttempt(a analytics.Attempt) {
	r.m.attempts.WithLabelValues(a.Provider, a.Outcome, a.Reason).Inc()
	r.next.RecordAttempt(a)
}

func (r countingRecorder) RecordRequest(q analytics.Request) { r.next.RecordRequest(q) }

package gateway

import (
	"testing"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
)

type attemptRows struct{ rows []analytics.Attempt }

func (r *attemptRows) RecordAttempt(a analytics.Attempt) { r.rows = append(r.rows, a) }
func (r *attemptRows) RecordRequest(analytics.Request)   {}

// TestPricer: catalog targets at their binding's price, an organisation's
// own model at the price its plan carries, anything else at none.
func TestPricer(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	mini, err := cat.Lookup("gpt-5-mini")
	if err != nil {
		t.Fatal(err)
	}
	usage := llm.Usage{Input: 1000, Output: 500}
	p := Pricer{Catalog: cat}
	for _, tt := range []struct {
		name   string
		target dispatch.Target
		want   int64
	}{
		{name: "catalog binding", target: dispatch.Target{Model: "gpt-5-mini", Provider: "openai", Upstream: "gpt-5-mini"},
			want: int64(1000*mini.Price.Input + 500*mini.Price.Output)},
		{name: "catalog model, a price on the target is ignored",
			target: dispatch.Target{Model: "gpt-5-mini", Provider: "openai", Upstream: "gpt-5-mini", Price: catalog.Price{Input: 100}},
			want:   int64(1000*mini.Price.Input + 500*mini.Price.Output)},
		{name: "tenant model at its plan's price", target: dispatch.Target{Model: "acme-llama", Price: catalog.Price{Input: 2, Output: 4}}, want: 4000},
		{name: "unknown and unpriced", target: dispatch.Target{Model: "acme-llama"}, want: 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.CostMicros(tt.target, usage); got != tt.want {
				t.Errorf("cost %d, want %d", got, tt.want)
			}
		})
	}
}

// TestAttemptSinkForwardsCost: the attempt row carries the cost dispatch's
// Pricer gave the event.
func TestAttemptSinkForwardsCost(t *testing.T) {
	rows := &attemptRows{}
	AttemptSink{Recorder: rows}.RecordAttempt(dispatch.AttemptEvent{OrgID: "org-a", RequestID: "req",
		Target: dispatch.Target{Model: "acme-llama", Provider: "acme"}, Usage: llm.Usage{Input: 1000, Output: 500}, CostMicros: 4000})
	if len(rows.rows) != 1 || rows.rows[0].CostMicros != 4000 || rows.rows[0].Model != "acme-llama" || rows.rows[0].InputTokens != 1000 {
		t.Fatalf("rows %+v", rows.rows)
	}
}

package gateway

import (
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
)

type attemptRows struct{ rows []analytics.Attempt }

func (r *attemptRows) RecordAttempt(a analytics.Attempt) { r.rows = append(r.rows, a) }
func (r *attemptRows) RecordRequest(analytics.Request)   {}

// TestAttemptSinkTenantPrice: an organisation's own model is priced from
// the memo its turn filled, for that organisation only; an unknown model
// costs 0.
func TestAttemptSinkTenantPrice(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	memo := NewPriceMemo()
	memo.put("org-a", "acme-llama", catalog.Price{Input: 2, Output: 4})
	rows := &attemptRows{}
	sink := AttemptSink{Catalog: cat, Prices: memo, Recorder: rows}
	usage := llm.Usage{Input: 1000, Output: 500} // 1000*$2/M + 500*$4/M = 4000 micros
	for _, org := range []string{"org-a", "org-b"} {
		sink.RecordAttempt(dispatch.AttemptEvent{OrgID: org, Target: dispatch.Target{Model: "acme-llama"}, Usage: usage})
	}
	sink.RecordAttempt(dispatch.AttemptEvent{OrgID: "org-a", Target: dispatch.Target{Model: "gpt-5-mini", Provider: "openai", Upstream: "gpt-5-mini"}, Usage: usage})
	if len(rows.rows) != 3 || rows.rows[0].CostMicros != 4000 || rows.rows[1].CostMicros != 0 || rows.rows[2].CostMicros != 1250 {
		t.Fatalf("costs %d %d %d, want 4000 (A's model), 0 (B has no such model), 1250 (catalog)",
			rows.rows[0].CostMicros, rows.rows[1].CostMicros, rows.rows[2].CostMicros)
	}
}

// TestPriceMemoBounded: past maxMemo entries, those unused for memoTTL are
// dropped; fresh ones stay.
func TestPriceMemoBounded(t *testing.T) {
	memo := NewPriceMemo()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	memo.now = func() time.Time { return now }
	memo.put("org", "old", catalog.Price{Input: 1})
	now = now.Add(memoTTL + time.Minute)
	for i := range maxMemo {
		memo.put("org", "m"+time.Duration(i).String(), catalog.Price{Input: 2})
	}
	if _, ok := memo.get("org", "old"); ok {
		t.Error("a stale entry survived the bound")
	}
	if p, ok := memo.get("org", "m5ns"); !ok || p.Input != 2 {
		t.Errorf("a fresh entry was dropped: %v %v", p, ok)
	}
	if len(memo.m) > maxMemo {
		t.Errorf("%d entries, bound %d", len(memo.m), maxMemo)
	}
	var nilMemo *PriceMemo
	nilMemo.put("org", "x", catalog.Price{})
	if _, ok := nilMemo.get("org", "x"); ok {
		t.Error("a nil memo remembered a price")
	}
}

package analyticstest

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

// OrgT has tagged requests: two tagged "ci" and "team:search" together,
// one "ci" alone, one untagged.
const OrgT = "org-t"

func testTagBreakdown(t *testing.T, s analytics.Store, r analytics.Reader) {
	load(t, s)
	mk := func(ev string, at time.Duration, tags string, cost, base int64, lat float64, status int) analytics.Request {
		return analytics.Request{EventID: ev, Time: T0.Add(at), RequestID: "t-" + ev, OrgID: OrgT, KeyID: "key-t",
			RouteKind: "routed", Status: status, Tags: tags, CostMicros: cost, BaselineMicros: base,
			SavingsMicros: base - cost, LatencyMs: lat, Attempts: 1}
	}
	rows := []analytics.Request{
		mk("t1", 0, "ci,team:search", 100, 300, 10, 200),
		mk("t2", time.Hour, "ci,team:search", 200, 300, 30, 500),
		mk("t3", 2*time.Hour, "ci", 50, 50, 80, 200),
		mk("t4", day, "", 10, 20, 5, 200),
	}
	if err := s.InsertRequests(ctx(t), rows); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		org      string
		from, to time.Time
		want     []analytics.BreakdownRow
	}{
		{"all time", OrgT, time.Time{}, time.Time{}, []analytics.BreakdownRow{
			{Key: "ci", Requests: 3, Errors: 1, Attempts: 3, CostMicros: 350, BaselineMicros: 650, SavingsMicros: 300, LatencyMeanMs: 40},
			{Key: "team:search", Requests: 2, Errors: 1, Attempts: 2, CostMicros: 300, BaselineMicros: 600, SavingsMicros: 300, LatencyMeanMs: 20},
			{Key: "", Requests: 1, Attempts: 1, CostMicros: 10, BaselineMicros: 20, SavingsMicros: 10, LatencyMeanMs: 5},
		}},
		{"second day", OrgT, T0.Add(day), time.Time{}, []analytics.BreakdownRow{
			{Key: "", Requests: 1, Attempts: 1, CostMicros: 10, BaselineMicros: 20, SavingsMicros: 10, LatencyMeanMs: 5},
		}},
		{"org without tags", OrgB, time.Time{}, time.Time{}, []analytics.BreakdownRow{
			{Key: "", Requests: 2, Errors: 1, Attempts: 2, InputTokens: 7, OutputTokens: 7, CostMicros: 99999, BaselineMicros: 99999, LatencyMeanMs: 6000},
		}},
		{"org without rows", OrgC, time.Time{}, time.Time{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Breakdown(ctx(t), tt.org, tt.from, tt.to, analytics.DimTag)
			if err != nil {
				t.Fatal(err)
			}
			assertRows(t, got, tt.want)
		})
	}
	checkWindows(t, r, OrgT, analytics.DimTag)
}

func testHealth(t *testing.T, s analytics.Store, r analytics.Reader) {
	hr, ok := r.(analytics.HealthReader)
	if !ok {
		t.Fatalf("%T does not implement analytics.HealthReader", r)
	}
	load(t, s)
	const org = "org-h"
	var rows []analytics.Attempt
	add := func(provider, model, outcome string, at time.Duration, lat float64) {
		rows = append(rows, analytics.Attempt{EventID: fmt.Sprintf("h-%02d", len(rows)), Time: T0.Add(at), OrgID: org,
			RequestID: fmt.Sprintf("hr-%02d", len(rows)), OperationID: "op", Model: model, Provider: provider,
			Outcome: outcome, LatencyMs: lat})
	}
	// openai/gpt-5: 8 served at 10..80 ms, 2 failed at 900 and 1000 ms, 1
	// skipped (latency 0, not an answer); anthropic/claude: 1 served.
	for i := range 8 {
		add("openai", "gpt-5", "served", time.Duration(i)*time.Minute, float64(10*(i+1)))
	}
	add("openai", "gpt-5", "failed", time.Hour, 900)
	add("openai", "gpt-5", "failed", 2*time.Hour, 1000)
	add("openai", "gpt-5", "skipped", 3*time.Hour, 0)
	add("anthropic", "claude", "served", day, 42)
	add("anthropic", "claude", "aborted", day+time.Minute, 3)
	if err := s.InsertAttempts(ctx(t), rows); err != nil {
		t.Fatal(err)
	}
	lastFail := analytics.Millis(T0.Add(2 * time.Hour))
	tests := []struct {
		name     string
		org      string
		from, to time.Time
		want     []analytics.BindingHealth
	}{
		{"all time", org, time.Time{}, time.Time{}, []analytics.BindingHealth{
			{Provider: "anthropic", Model: "claude", Attempts: 2, Served: 1, SuccessRate: 1, LatencyP50: 42, LatencyP95: 42, LatencyP99: 42},
			{Provider: "openai", Model: "gpt-5", Attempts: 11, Served: 8, Failed: 2, Skipped: 1, SuccessRate: 0.8,
				LatencyP50: 60, LatencyP95: 1000, LatencyP99: 1000, LastFailure: lastFail},
		}},
		{"first hour", org, time.Time{}, T0.Add(time.Hour), []analytics.BindingHealth{
			{Provider: "openai", Model: "gpt-5", Attempts: 8, Served: 8, SuccessRate: 1, LatencyP50: 50, LatencyP95: 80, LatencyP99: 80},
		}},
		{"org without rows", OrgC, time.Time{}, time.Time{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := hr.Health(ctx(t), tt.org, tt.from, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Health:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	if _, err := hr.Health(ctx(t), "", time.Time{}, time.Time{}); !errors.Is(err, analytics.ErrOrgRequired) {
		t.Fatalf("Health without org: %v, want ErrOrgRequired", err)
	}
}

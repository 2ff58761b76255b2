package sqlstore

import (
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

// attemptRow is one row of the attempts table.
type attemptRow struct {
	EventID        string    `gorm:"column:event_id;primaryKey"`
	Time           time.Time `gorm:"column:time"`
	TimeMs         int64     `gorm:"column:time_ms"`
	OrgID          string    `gorm:"column:org_id"`
	KeyID          string    `gorm:"column:key_id"`
	RequestID      string    `gorm:"column:request_id"`
	OperationID    string    `gorm:"column:operation_id"`
	Purpose        string    `gorm:"column:purpose"`
	PolicyID       string    `gorm:"column:policy_id"`
	BundleID       string    `gorm:"column:bundle_id"`
	BundleRevision string    `gorm:"column:bundle_revision"`
	AttemptIndex   int       `gorm:"column:attempt_index"`
	Model          string    `gorm:"column:model"`
	Provider       string    `gorm:"column:provider"`
	Upstream       string    `gorm:"column:upstream"`
	CredentialID   string    `gorm:"column:credential_id"`
	Outcome        string    `gorm:"column:outcome"`
	Reason         string    `gorm:"column:reason"`
	Status         int       `gorm:"column:status"`
	LatencyMs      float64   `gorm:"column:latency_ms"`
	TTFBMs         float64   `gorm:"column:ttfb_ms"`
	InputTokens    int64     `gorm:"column:input_tokens"`
	OutputTokens   int64     `gorm:"column:output_tokens"`
	CacheRead      int64     `gorm:"column:cache_read"`
	CacheWrite     int64     `gorm:"column:cache_write"`
	Reasoning      int64     `gorm:"column:reasoning"`
	CostMicros     int64     `gorm:"column:cost_micros"`
	Stream         bool      `gorm:"column:stream"`
}

// TableName names the table for gorm.
func (attemptRow) TableName() string { return "attempts" }

// requestRow is one row of the requests table.
type requestRow struct {
	EventID        string    `gorm:"column:event_id;primaryKey"`
	Time           time.Time `gorm:"column:time"`
	TimeMs         int64     `gorm:"column:time_ms"`
	RequestID      string    `gorm:"column:request_id"`
	OrgID          string    `gorm:"column:org_id"`
	KeyID          string    `gorm:"column:key_id"`
	EndUser        string    `gorm:"column:end_user"`
	Session        string    `gorm:"column:session"`
	Format         string    `gorm:"column:format"`
	RequestedModel string    `gorm:"column:requested_model"`
	ServedModel    string    `gorm:"column:served_model"`
	Provider       string    `gorm:"column:provider"`
	RouteKind      string    `gorm:"column:route_kind"`
	Decision       string    `gorm:"column:decision"`
	CacheHit       bool      `gorm:"column:cache_hit"`
	Stream         bool      `gorm:"column:stream"`
	Fallback       bool      `gorm:"column:fallback"`
	Attempts       int       `gorm:"column:attempts"`
	InputTokens    int64     `gorm:"column:input_tokens"`
	OutputTokens   int64     `gorm:"column:output_tokens"`
	CacheRead      int64     `gorm:"column:cache_read"`
	CacheWrite     int64     `gorm:"column:cache_write"`
	Reasoning      int64     `gorm:"column:reasoning"`
	CostMicros     int64     `gorm:"column:cost_micros"`
	BaselineMicros int64     `gorm:"column:baseline_micros"`
	SavingsMicros  int64     `gorm:"column:savings_micros"`
	LatencyMs      float64   `gorm:"column:latency_ms"`
	TTFBMs         float64   `gorm:"column:ttfb_ms"`
	Status         int       `gorm:"column:status"`
	ErrorCode      string    `gorm:"column:error_code"`
	Tags           string    `gorm:"column:tags"`
	BaselineModel  string    `gorm:"column:baseline_model"`
	Candidates     string    `gorm:"column:candidates"`
}

// TableName names the table for gorm.
func (requestRow) TableName() string { return "requests" }

func fromAttempt(a analytics.Attempt) attemptRow {
	a = a.Clean()
	t := analytics.Millis(a.Time)
	return attemptRow{
		EventID: a.EventID, Time: t, TimeMs: t.UnixMilli(), OrgID: a.OrgID, KeyID: a.KeyID, RequestID: a.RequestID,
		OperationID: a.OperationID, Purpose: a.Purpose, PolicyID: a.PolicyID, BundleID: a.BundleID,
		BundleRevision: a.BundleRevision, AttemptIndex: a.AttemptIndex, Model: a.Model, Provider: a.Provider,
		Upstream: a.Upstream, CredentialID: a.CredentialID, Outcome: a.Outcome, Reason: a.Reason, Status: a.Status,
		LatencyMs: a.LatencyMs, TTFBMs: a.TTFBMs, InputTokens: a.InputTokens, OutputTokens: a.OutputTokens,
		CacheRead: a.CacheRead, CacheWrite: a.CacheWrite, Reasoning: a.Reasoning, CostMicros: a.CostMicros,
		Stream: a.Stream,
	}
}

func (r attemptRow) attempt() analytics.Attempt {
	return analytics.Attempt{
		EventID: r.EventID, Time: time.UnixMilli(r.TimeMs).UTC(), OrgID: r.OrgID, KeyID: r.KeyID,
		RequestID: r.RequestID, OperationID: r.OperationID, Purpose: r.Purpose, PolicyID: r.PolicyID,
		BundleID: r.BundleID, BundleRevision: r.BundleRevision, AttemptIndex: r.AttemptIndex, Model: r.Model,
		Provider: r.Provider, Upstream: r.Upstream, CredentialID: r.CredentialID, Outcome: r.Outcome,
		Reason: r.Reason, Status: r.Status, LatencyMs: r.LatencyMs, TTFBMs: r.TTFBMs, InputTokens: r.InputTokens,
		OutputTokens: r.OutputTokens, CacheRead: r.CacheRead, CacheWrite: r.CacheWrite, Reasoning: r.Reasoning,
		CostMicros: r.CostMicros, Stream: r.Stream,
	}
}

func fromRequest(q analytics.Request) requestRow {
	q = q.Clean()
	t := analytics.Millis(q.Time)
	return requestRow{
		EventID: q.EventID, Time: t, TimeMs: t.UnixMilli(), RequestID: q.RequestID, OrgID: q.OrgID, KeyID: q.KeyID,
		EndUser: q.User, Session: q.Session, Format: q.Format, RequestedModel: q.RequestedModel,
		ServedModel: q.ServedModel, Provider: q.Provider, RouteKind: q.RouteKind, Decision: q.Decision,
		CacheHit: q.CacheHit, Stream: q.Stream, Fallback: q.Fallback, Attempts: q.Attempts,
		InputTokens: q.InputTokens, OutputTokens: q.OutputTokens, CacheRead: q.CacheRead, CacheWrite: q.CacheWrite,
		Reasoning: q.Reasoning, CostMicros: q.CostMicros, BaselineMicros: q.BaselineMicros,
		SavingsMicros: q.SavingsMicros, LatencyMs: q.LatencyMs, TTFBMs: q.TTFBMs, Status: q.Status,
		ErrorCode: q.ErrorCode, Tags: q.Tags, BaselineModel: q.BaselineModel, Candidates: q.Candidates,
	}
}

func (r requestRow) request() analytics.Request {
	return analytics.Request{
		EventID: r.EventID, Time: time.UnixMilli(r.TimeMs).UTC(), RequestID: r.RequestID, OrgID: r.OrgID,
		KeyID: r.KeyID, User: r.EndUser, Session: r.Session, Format: r.Format, RequestedModel: r.RequestedModel,
		ServedModel: r.ServedModel, Provider: r.Provider, RouteKind: r.RouteKind, Decision: r.Decision,
		CacheHit: r.CacheHit, Stream: r.Stream, Fallback: r.Fallback, Attempts: r.Attempts,
		InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CacheRead: r.CacheRead, CacheWrite: r.CacheWrite,
		Reasoning: r.Reasoning, CostMicros: r.CostMicros, BaselineMicros: r.BaselineMicros,
		SavingsMicros: r.SavingsMicros, LatencyMs: r.LatencyMs, TTFBMs: r.TTFBMs, Status: r.Status,
		ErrorCode: r.ErrorCode, Tags: r.Tags, BaselineModel: r.BaselineModel, Candidates: r.Candidates,
	}
}

package analytics

import "time"

// Attempt is one row of the attempts table: one upstream attempt.
type Attempt struct {
	EventID        string
	Time           time.Time
	OrgID          string
	KeyID          string
	RequestID      string
	OperationID    string
	Purpose        string // main, handover, probe
	PolicyID       string
	BundleID       string
	BundleRevision string
	AttemptIndex   int
	Model          string // catalog model id
	Provider       string
	Upstream       string // upstream model id
	CredentialID   string
	Outcome        string // served, failed, skipped, aborted
	Reason         string // closed failure vocabulary, empty when served
	Status         int    // upstream HTTP status, 0 if none
	LatencyMs      float64
	TTFBMs         float64
	InputTokens    int64
	OutputTokens   int64
	CacheRead      int64
	CacheWrite     int64
	Reasoning      int64
	CostMicros     int64
	Stream         bool
}

// Request is one row of the requests table: one client request.
type Request struct {
	EventID        string
	Time           time.Time
	RequestID      string
	OrgID          string
	KeyID          string
	User           string // end user, if known
	Session        string
	Format         string // caller's wire format
	RequestedModel string
	ServedModel    string
	Provider       string
	RouteKind      string // explicit, routed, pinned, cache
	Decision       string // short routing decision summary
	CacheHit       bool
	Stream         bool
	Fallback       bool
	Attempts       int
	InputTokens    int64
	OutputTokens   int64
	CacheRead      int64
	CacheWrite     int64
	Reasoning      int64
	CostMicros     int64
	BaselineMicros int64
	SavingsMicros  int64
	LatencyMs      float64
	TTFBMs         float64
	Status         int    // HTTP status returned to the caller
	ErrorCode      string // <group>.<code>, empty on success
	// Tags are the request's tags (the key's and the x-heddle-tags
	// header's), as JoinTags writes them; "" for none.
	Tags string
	// BaselineModel is the model the baseline cost was priced on.
	BaselineModel string
	// Candidates are the router's scores of the eligible models, as
	// FormatCandidates writes them; "" when the turn was not routed.
	Candidates string
}

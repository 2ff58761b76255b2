package gateway

import (
	"context"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
)

// Caller is the authenticated principal of a data-plane request.
type Caller struct {
	OrgID     string
	KeyID     string
	KeyPrefix string // display prefix of the rk_ key, safe to log
	Scopes    []string
	// Policy is the key's routing policy: "explicit" (default) or "route-all".
	Policy string
	// Alpha is the key's (or org's) quality/cost dial; nil means the default.
	Alpha *float64
	// Limits are the key's rate limits and budgets.
	Limits Limits
	// Tags are the key's tags, recorded on each of its requests.
	Tags []string
}

// HasScope reports whether c was granted scope.
func (c Caller) HasScope(scope string) bool {
	for _, s := range c.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// Authenticator resolves a presented rk_ key and the limits its turns run
// under (Caller.Limits: the key's and organisation's own, else the plan's
// defaults, read per request). Any key failure (unknown, malformed,
// revoked, expired) returns an error wrapping ErrUnauthorized and nothing
// else, so callers answer with one opaque 401; a store that cannot be read
// for the limits returns its own error (credits.ErrUnavailable or
// billing.ErrBudgetUnavailable: 503), never unlimited limits.
type Authenticator interface {
	Authenticate(ctx context.Context, presented string) (Caller, error)
}

// Executor runs operations through the dispatch boundary: the caller's
// turn, and with a nil writer whole auxiliary calls (handover summaries).
type Executor interface {
	Run(ctx context.Context, meta dispatch.Meta, plan dispatch.Plan, op *dispatch.Operation, out dispatch.StreamWriter) (*dispatch.Result, error)
}

// Recorder receives request rows and attempt rows; it must never block.
type Recorder interface {
	RecordAttempt(a analytics.Attempt)
	RecordRequest(r analytics.Request)
}

// ContentKeeper keeps the prompt and answer of organisations that opted in
// to content storage (SPEC 8; analytics.Contents fits). Enabled runs on the
// request path: it is cached per replica, honours ctx and fails closed
// (false when the setting cannot be read). Keep runs in the background after
// the answer was written, with its own timeout; it may block, re-checks the
// setting and stores nothing for an organisation that did not opt in. Its
// errors never carry the content.
type ContentKeeper interface {
	Enabled(ctx context.Context, orgID string) bool
	Keep(ctx context.Context, c analytics.TurnContent) error
}

// Codecs returns the codec of a wire format.
type Codecs map[llm.Format]llm.Codec

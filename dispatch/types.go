package dispatch

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/llm"
)

// Target is one place a plan may send an operation.
type Target struct {
	Model    string     // catalog model id
	Provider string     // provider name, e.g. "openai"
	Upstream string     // the upstream's model id
	Format   llm.Format // the wire format the provider speaks
	BaseURL  string     // API root; empty means the provider's default
	// Price is the target's own price per million tokens, for a target the
	// catalog does not list (an organisation's own model); the Pricer prices
	// catalog targets from the catalog. The zero value is no price.
	Price catalog.Price
}

// TargetKey identifies a target for breakers, the target cache and a
// walk's bookkeeping: comparable, so building and comparing one costs no
// allocation (a walk compares keys several times a turn).
type TargetKey struct{ Provider, Upstream, BaseURL string }

// Key identifies the target for breakers and the target cache.
func (t Target) Key() TargetKey { return TargetKey{t.Provider, t.Upstream, t.BaseURL} }

// Plan is an ordered list of targets: the selected one first, then alternatives.
type Plan struct {
	Targets []Target
	// MaxAttempts bounds all attempts, same-target retries included; 0 means
	// the executor's default.
	MaxAttempts int
	// Bound keeps the operation on its first target: transient errors may be
	// retried in place but never fail over.
	Bound bool
}

// Credential is the secret used to call a provider for one organisation.
// Secret must never be logged or stored outside the vault.
type Credential struct {
	ID      string // credential id (for breakers and events), never the secret
	Secret  string
	BaseURL string // overrides Target.BaseURL when set (tenant-defined endpoints)
}

// Credentials resolves the credential an organisation uses for a provider.
// It returns ErrNotConfigured when the org has none.
type Credentials interface {
	Resolve(ctx context.Context, orgID, provider string) (Credential, error)
}

// Call is one attempt's wire request, ready to send.
type Call struct {
	Target     Target
	Credential Credential
	Body       []byte // request body in Target.Format, model already set
	Stream     bool
	// Header carries pass-through caller headers (anthropic-beta,
	// anthropic-version); providers add their own auth.
	Header http.Header
	// Endpoint is the operation's endpoint (see Operation.Endpoint).
	Endpoint Endpoint
}

// Reply is an upstream's successful (2xx) answer; the caller closes Body.
type Reply struct {
	Status int
	Header http.Header
	Body   io.ReadCloser
}

// Provider sends one attempt to an upstream. It returns *UpstreamError for a
// non-2xx status and a transport error (wrapped) when no response arrived.
// It must honour ctx.
type Provider interface {
	Send(ctx context.Context, call *Call) (*Reply, error)
}

// Operation is one inference operation of a request (the main turn, a
// handover summary, a probe).
type Operation struct {
	Purpose Purpose
	Inbound llm.Format   // the caller's format
	Request *llm.Request // canonical request
	// RawBody is the caller's body, forwarded unchanged (but for the model
	// field) when a target speaks the inbound format.
	RawBody []byte
	Header  http.Header
	Stream  bool
	// Endpoint selects the upstream operation; empty means generation.
	Endpoint Endpoint
}

// Endpoint names an upstream operation other than generation.
type Endpoint string

// Endpoints. EndpointCountTokens forwards an Anthropic count_tokens body to
// a same-format target and returns the upstream's body as is.
// EndpointEmbeddings forwards an OpenAI embeddings body the same way; its
// usage is read by the format codec's llm.EmbeddingCodec ability.
const (
	EndpointGenerate    Endpoint = ""
	EndpointCountTokens Endpoint = "count_tokens"
	EndpointEmbeddings  Endpoint = "embeddings"
)

// Purpose is why an operation runs.
type Purpose string

// Operation purposes.
const (
	PurposeMain     Purpose = "main"
	PurposeHandover Purpose = "handover"
	PurposeProbe    Purpose = "probe"
)

// Meta identifies the request an operation belongs to, for events.
type Meta struct {
	OrgID       string
	KeyID       string
	RequestID   string
	OperationID string
	Provenance  Provenance
	// IdempotencyKey, when set, deduplicates the operation (scoped by org and key).
	IdempotencyKey string
	// OrgConcurrency is the organisation's cap on operations in flight on
	// this replica, as the caller resolved it (its own setting, else its
	// plan's default); 0 or less means Config.OrgConcurrency.
	OrgConcurrency int
}

// Provenance records which policy and bundle produced the plan.
type Provenance struct {
	Purpose        Purpose
	PolicyID       string
	BundleID       string
	BundleRevision string
}

// StreamWriter receives a streamed answer. The executor holds events until the
// upstream's first content arrives (the commit gate), then writes every event
// in order. Events decoded from a same-format upstream carry Raw.
type StreamWriter interface {
	Write(e llm.Event) error
	Flush() error
}

// Result is what a successful Run returns.
type Result struct {
	Served       Target
	FallbackUsed bool
	Committed    bool
	// Response is the complete answer of a non-streaming operation.
	Response *llm.Response
	// RawBody is the upstream's body for a non-streaming operation when the
	// served target speaks the inbound format (fast path), else nil.
	RawBody []byte
	Usage   llm.Usage
	// Attempts is how many attempts were made (skips excluded).
	Attempts int
	TTFB     time.Duration
	// Shared says the answer is another operation's with the same
	// Idempotency-Key: this operation made no upstream call (Attempts is 0)
	// and costs nothing; Usage is the shared answer's.
	Shared Sharing
	// Interrupted is why a committed stream failed (Committed is set and
	// Run returned an error wrapping ErrCommitted), "" otherwise.
	Interrupted Reason
}

// Sharing says whether and how a Result was shared by idempotency.
type Sharing string

// Sharings. SharedJoin: the operation waited for an identical one in
// flight; SharedReplay: it got a stored answer of a finished one.
const (
	SharedNone   Sharing = ""
	SharedJoin   Sharing = "join"
	SharedReplay Sharing = "replay"
)

// Committer is an optional ability of a StreamWriter, found by type
// assertion: the executor calls Commit exactly once, with the target that
// serves the stream and whether it is a fallback, just before it writes the
// first event (the commit point). The HTTP layer uses it to send the status
// line and the x-heddle-* headers of the served target.
type Committer interface {
	Commit(served Target, fallback bool)
}

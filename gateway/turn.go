package gateway

import (
	"net/http"
	"time"

	"github.com/heddle-gw/heddle/llm"
)

// Turn is one data-plane request as the HTTP layer hands it over. Body and
// every string must be owned by the Turn (copied out of the server's buffers).
type Turn struct {
	RequestID string
	Received  time.Time
	Format    llm.Format
	Body      []byte
	// Header holds the caller headers the pipeline reads (anthropic-beta,
	// anthropic-version, session ids, Idempotency-Key, Cache-Control).
	Header http.Header
	// PathModel is the model named in the URL (Gemini); empty otherwise.
	PathModel string
	// PathStream is true for Gemini's :streamGenerateContent.
	PathStream bool
	Caller     Caller
}

// Route kinds reported in x-heddle-route.
const (
	RouteExplicit = "explicit"
	RouteRouted   = "routed"
	RoutePinned   = "pinned"
	RouteCache    = "cache"
)

// Served describes who answered, for the response headers.
type Served struct {
	RequestID string
	Model     string // catalog model id
	Provider  string
	Route     string
	Fallback  bool
	Stream    bool
}

// Output receives the caller's response. Commit is called once, before the
// first Write, when the answer is certain to start (for a stream: at the
// dispatch commit point). Write gets bytes already encoded in the caller's
// wire format; Flush pushes them to the client (streams only).
type Output interface {
	Commit(s Served)
	Write(p []byte) error
	Flush() error
}

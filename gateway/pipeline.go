package gateway

import (
	"context"
	"net/http"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// stage is one step of the turn pipeline on the way in. run returns an
// error to end the turn with it, or sets p.answered to end the way in with
// the turn answered (a cache hit).
type stage interface {
	run(ctx context.Context, p *pass) error
}

// follower is a stage with work once the turn was answered without error
// (a cache store, a pin update, a content store). It must not block: its
// I/O runs in the background on the turn's context without its
// cancellation (traces and log fields stay) and with its own timeout.
type follower interface {
	follow(ctx context.Context, p *pass)
}

// finisher runs for every turn, answered or failed, in order: account,
// settle, record. It must not block beyond its own timeouts; ctx is the
// turn's without its cancellation (traces and log fields stay).
type finisher interface {
	finish(ctx context.Context, p *pass, err error)
}

// pass is one turn on its way through the pipeline: what the stages
// learned so far. Each field is written by one stage, named beside it.
type pass struct {
	t   *Turn
	out Output
	rec *analytics.Request // the request record, filled by every stage

	codec llm.Codec    // decode
	req   *llm.Request // decode
	// session is the session id (routing.SessionOf), computed once by
	// sessionID and recorded as the one the pin used.
	session     string
	sessionDone bool
	// userSession is the session the end-user field named (see endUser),
	// the session when no header names one (decode).
	userSession string

	org     orgRouting   // policy
	verdict verdict      // policy
	keep    bool         // content: the organisation stores content
	cache   cacheTurn    // cache lookup
	collect bool         // content, cache: keep the whole streamed answer
	res     *resolution  // route (pin may change it)
	send    *llm.Request // pin: the request after a handover (nil: req)
	credit  creditTurn   // credits: the turn's funding and hold
	embed   *embedTurn   // embed: an embeddings request's wire (nil: a turn)

	answered bool             // cache: served from the cache
	result   *dispatch.Result // dispatch
	turnCost int64            // account: the turn's own cost, without its handover summary
	summary  *dispatch.Result // account: the handover summary call it priced (nil: none)
	response *llm.Response    // dispatch or cache: the complete answer
	body     []byte           // dispatch: the whole answer as sent
}

func newPass(t *Turn, out Output) *pass {
	return &pass{t: t, out: out, rec: &analytics.Request{
		EventID: newID(), Time: t.Received, RequestID: t.RequestID,
		OrgID: t.Caller.OrgID, KeyID: t.Caller.KeyID, Format: string(t.Format), Status: 200,
		Tags: requestTags(t.Header, t.Caller.Tags),
	}}
}

// sessionID is the turn's session id: the first session header (bounded
// by routing.SessionOf), else the session the end-user field named, else one
// derived from the decoded request, else "".
// It is computed once, so the record and the pin agree.
func (p *pass) sessionID() string {
	if !p.sessionDone {
		var source string
		p.session, source = routing.SessionOf(p.t.Header, p.req)
		if (source == routing.SessionDerived || source == routing.SessionNone) && p.userSession != "" {
			// The client named its session in the end-user field (Claude
			// Code's metadata.user_id): better than a digest of the prompt.
			p.session, _ = routing.SessionOf(http.Header{routing.HeaderHeddleSession: {p.userSession}}, nil)
		}
		p.sessionDone = true
	}
	return p.session
}

// upstream is the request sent upstream: the decoded one, or its handover.
func (p *pass) upstream() *llm.Request {
	if p.send != nil {
		return p.send
	}
	return p.req
}

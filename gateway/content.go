package gateway

import (
	"context"
	"log/slog"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

// keepTimeout bounds one background content store.
const keepTimeout = 10 * time.Second

// maxKeeping bounds the content stores in flight per replica: when the
// store is slow, goroutines and held prompts stop growing at this many, and
// further turns are not stored (logged by request id).
const maxKeeping = 64

// contentStage keeps the prompt and final answer of organisations that
// opted in (SPEC 8): on the way in it asks whether the organisation stores
// content (so a streamed answer is collected); once the turn was answered it
// hands both to the keeper in the background.
type contentStage struct {
	keeper ContentKeeper
	logger *slog.Logger
	// keeping bounds the stores in flight; a turn finding it full is not
	// stored.
	keeping chan struct{}
}

func newContentStage(k ContentKeeper, logger *slog.Logger) contentStage {
	return contentStage{keeper: k, logger: logger, keeping: make(chan struct{}, maxKeeping)}
}

func (s contentStage) run(ctx context.Context, p *pass) error {
	p.keep = s.keeper.Enabled(ctx, p.t.Caller.OrgID)
	p.collect = p.collect || p.keep
	return nil
}

// follow stores an opted-in turn's request and answer, at most maxKeeping
// at a time; it never delays nor fails the request, and its log lines carry
// ids only.
func (s contentStage) follow(ctx context.Context, p *pass) {
	if !p.keep || p.req == nil || p.response == nil {
		return
	}
	t := p.t
	c := analytics.TurnContent{OrgID: t.Caller.OrgID, KeyID: t.Caller.KeyID, RequestID: t.RequestID, Time: t.Received,
		Request: p.req, Response: p.response}
	select {
	case s.keeping <- struct{}{}:
	default:
		s.logger.Warn("request content not stored: too many content stores in flight",
			"request_id", c.RequestID, "org_id", c.OrgID, "in_flight", maxKeeping)
		return
	}
	go func() {
		defer func() { <-s.keeping }()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), keepTimeout)
		defer cancel()
		if err := s.keeper.Keep(ctx, c); err != nil {
			s.logger.WarnContext(ctx, "request content not stored", "request_id", c.RequestID, "org_id", c.OrgID, "err", err)
		}
	}()
}

package gateway

import (
	"context"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/llm"
)

// keepTimeout bounds one background content store.
const keepTimeout = 10 * time.Second

// maxKeeping bounds the content stores in flight per replica: when the
// store is slow, goroutines and held prompts stop growing at this many, and
// further turns are not stored (logged by request id).
const maxKeeping = 64

// keepsContent reports whether the caller's organisation stores content.
func (s *Service) keepsContent(ctx context.Context, c Caller) bool {
	return s.d.Content != nil && s.d.Content.Enabled(ctx, c.OrgID)
}

// keepContent hands an opted-in turn's request and final answer to the
// content keeper in the background, at most maxKeeping at a time; it never
// delays nor fails the request, and its log lines carry ids only.
func (s *Service) keepContent(t *Turn, keep bool, req *llm.Request, resp *llm.Response) {
	if !keep || req == nil || resp == nil {
		return
	}
	c := analytics.TurnContent{OrgID: t.Caller.OrgID, KeyID: t.Caller.KeyID, RequestID: t.RequestID, Time: t.Received,
		Request: req, Response: resp}
	select {
	case s.keeping <- struct{}{}:
	default:
		s.d.Logger.Warn("request content not stored: too many content stores in flight",
			"request_id", c.RequestID, "org_id", c.OrgID, "in_flight", maxKeeping)
		return
	}
	go func() {
		defer func() { <-s.keeping }()
		ctx, cancel := context.WithTimeout(context.Background(), keepTimeout)
		defer cancel()
		if err := s.d.Content.Keep(ctx, c); err != nil {
			s.d.Logger.WarnContext(ctx, "request content not stored", "request_id", c.RequestID, "org_id", c.OrgID, "err", err)
		}
	}()
}

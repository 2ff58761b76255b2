package gateway

import (
	"context"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/llm"
)

// keepTimeout bounds one background content store.
const keepTimeout = 10 * time.Second

// keepsContent reports whether the caller's organisation stores content.
func (s *Service) keepsContent(ctx context.Context, c Caller) bool {
	return s.d.Content != nil && s.d.Content.Enabled(ctx, c.OrgID)
}

// keepContent hands an opted-in turn's request and final answer to the
// content keeper in the background; it never delays nor fails the request,
// and its log lines carry ids only.
func (s *Service) keepContent(t *Turn, keep bool, req *llm.Request, resp *llm.Response) {
	if !keep || req == nil || resp == nil {
		return
	}
	c := analytics.TurnContent{OrgID: t.Caller.OrgID, KeyID: t.Caller.KeyID, RequestID: t.RequestID, Time: t.Received,
		Request: req, Response: resp}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), keepTimeout)
		defer cancel()
		if err := s.d.Content.Keep(ctx, c); err != nil {
			s.d.Logger.WarnContext(ctx, "request content not stored", "request_id", c.RequestID, "org_id", c.OrgID, "err", err)
		}
	}()
}

package gateway

import (
	"context"
	"errors"
	"fmt"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
)

// TokenCount is the answer to a count_tokens request.
type TokenCount struct {
	// Body is the upstream's own answer when it was forwarded.
	Body []byte
	// Estimate is Heddle's estimate when it was not (Body is nil).
	Estimate int
}

// CountTokens answers Anthropic's count_tokens: forwarded to the model's
// Anthropic binding when the model is Anthropic's and the organisation can
// reach it, otherwise estimated (and marked as an estimate by the caller).
// decode parses the body (count_tokens bodies carry no max_tokens).
func (s *Service) CountTokens(ctx context.Context, c Caller, body []byte, decode func([]byte) (*llm.Request, error)) (*TokenCount, error) {
	if !c.HasScope("inference") && !c.HasScope("route") {
		return nil, ErrForbidden
	}
	req, err := decode(body)
	if err != nil {
		return nil, err
	}
	estimate := &TokenCount{Estimate: EstimateTokens(req)}
	model, err := s.d.Catalog.Lookup(req.Model)
	if err != nil || isAuto(req.Model) {
		return estimate, nil
	}
	plan, err := s.plans.plan(model)
	if err != nil {
		return estimate, nil
	}
	var targets []dispatch.Target
	for _, t := range plan.Targets {
		if t.Format == llm.FormatAnthropic {
			targets = append(targets, t)
		}
	}
	if len(targets) == 0 {
		return estimate, nil
	}
	id := NewRequestID()
	res, err := s.d.Executor.Run(ctx, dispatch.Meta{
		OrgID: c.OrgID, KeyID: c.KeyID, RequestID: id, OperationID: id + "/count",
		Provenance:     dispatch.Provenance{Purpose: dispatch.PurposeProbe, PolicyID: "count_tokens"},
		OrgConcurrency: c.Limits.MaxConcurrency,
	}, dispatch.Plan{Targets: targets, MaxAttempts: s.cfg.MaxAttempts}, &dispatch.Operation{
		Purpose: dispatch.PurposeProbe, Inbound: llm.FormatAnthropic, Request: req, RawBody: body,
		Endpoint: dispatch.EndpointCountTokens,
	}, nil)
	switch {
	case err == nil && res != nil && res.RawBody != nil:
		return &TokenCount{Body: res.RawBody}, nil
	case err == nil:
		return nil, fmt.Errorf("gateway: count tokens: %w", dispatch.ErrBadOperation)
	case errors.Is(err, dispatch.ErrNotConfigured):
		return estimate, nil
	}
	return nil, fmt.Errorf("gateway: count tokens: %w", err)
}

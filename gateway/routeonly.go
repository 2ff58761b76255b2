package gateway

import (
	"context"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// RouteAnswer is the routing decision for a request, without an upstream call.
type RouteAnswer struct {
	RequestedModel string            `json:"requested_model"`
	Model          string            `json:"model"`
	Route          string            `json:"route"`
	Policy         string            `json:"policy"`
	Baseline       string            `json:"baseline_model"`
	Targets        []RouteTarget     `json:"targets"`
	Decision       *routing.Decision `json:"decision,omitempty"`
}

// RouteTarget is one entry of the plan the request would walk.
type RouteTarget struct {
	Model    string `json:"model"`
	Provider string `json:"provider"`
	Upstream string `json:"upstream"`
}

// Route decodes body in format f and returns the decision Heddle would make
// for it, with its explanation. It needs the "route" scope.
func (s *Service) Route(ctx context.Context, c Caller, f llm.Format, body []byte, pathModel string) (*RouteAnswer, error) {
	if !c.HasScope("route") && !c.HasScope("inference") {
		return nil, ErrForbidden
	}
	req, err := s.d.Codecs[f].DecodeRequest(body)
	if err != nil {
		return nil, err
	}
	if f == llm.FormatGemini {
		req.Model = pathModel
	}
	r, err := s.resolve(ctx, c, req, routingFor(ctx, s.d.Routers, c.OrgID))
	if err != nil {
		return nil, err
	}
	a := &RouteAnswer{
		RequestedModel: req.Model, Model: r.model.ID, Route: r.route, Policy: r.provenance.PolicyID,
		Baseline: r.baseline.ID, Decision: r.decision,
	}
	for _, t := range r.plan.Targets {
		a.Targets = append(a.Targets, RouteTarget{Model: t.Model, Provider: t.Provider, Upstream: t.Upstream})
	}
	return a, nil
}

package app

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/llm"
)

// routePreview is the console's "try a prompt": the organisation's routing
// decision for one user message sent as model, through the same resolution
// as /v1/route (policy, aliases, allow and deny lists, the router), with no
// upstream call.
func routePreview(s *gateway.Service) func(ctx context.Context, orgID, model, prompt string) (*gateway.RouteAnswer, error) {
	return func(ctx context.Context, orgID, model, prompt string) (*gateway.RouteAnswer, error) {
		body, err := json.Marshal(map[string]any{
			"model": model, "messages": []map[string]string{{"role": "user", "content": prompt}},
		})
		if err != nil {
			return nil, fmt.Errorf("app: route preview: %w", err)
		}
		return s.Route(ctx, gateway.Caller{OrgID: orgID, Scopes: []string{"route"}}, llm.FormatChat, body, "")
	}
}

package web

import (
	"errors"
	"slices"
	"sort"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/gateway"
	rview "github.com/heddle-gw/heddle/web/views/pages/routing"
)

// maxTryPrompt bounds the routing page's tried prompt.
const maxTryPrompt = 32 << 10

// tryRoute handles POST /routing/try: the router's decision for the
// form's prompt (see ConsoleConfig.RoutePreview), as the form with its
// answer. An empty or oversized prompt re-renders the form with 422; a
// refusal (a denied model, say) shows its reason.
func (c *Console) tryRoute(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	p := rview.TryProps{CSRF: sessionOf(ctx).CSRF, Model: formValue(ctx, "model"), Prompt: formValue(ctx, "prompt")}
	status := fiber.StatusOK
	switch {
	case p.Prompt == "" || len(p.Prompt) > maxTryPrompt:
		status, p.Error = fiber.StatusUnprocessableEntity, "Type a prompt of at most 32 kB."
	case c.d.RoutePreview == nil:
		return c.fail(ctx, errors.New("web: routing preview not configured"))
	default:
		model := p.Model
		if model == "" {
			model = "auto"
		}
		a, err := c.d.RoutePreview(ctx.UserContext(), act.OrgID, model, p.Prompt)
		if err != nil {
			st, msg, _ := c.errorText(ctx, err)
			if st >= 500 {
				return c.fail(ctx, err)
			}
			status, p.Error = st, msg
			break
		}
		p.Answer = tryAnswer(a)
	}
	return c.render(ctx, status, rview.TryForm(p))
}

func tryAnswer(a *gateway.RouteAnswer) *rview.TryAnswer {
	out := &rview.TryAnswer{Requested: a.RequestedModel, Model: a.Model, Route: a.Route, Policy: a.Policy, Baseline: a.Baseline}
	for _, t := range a.Targets {
		out.Targets = append(out.Targets, t.Model+" on "+t.Provider+" ("+t.Upstream+")")
	}
	if d := a.Decision; d != nil {
		out.Decision = "alpha " + strconv.FormatFloat(d.Alpha, 'f', 2, 64) + ", bundle " + d.BundleID + "@" + d.BundleRevision
		scores := slices.Clone(d.Scores)
		sort.SliceStable(scores, func(i, j int) bool { return scores[i].Score > scores[j].Score })
		for _, s := range scores {
			out.Scores = append(out.Scores, [2]string{s.Model, strconv.FormatFloat(s.Score, 'f', 3, 64)})
		}
	}
	return out
}

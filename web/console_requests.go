package web

import (
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/web/views/pages/requests"
)

// explorerPageSize is how many requests one explorer page shows.
const explorerPageSize = 25

// requestFilter reads the explorer's filter from the query string.
func requestFilter(ctx *fiber.Ctx) requests.Filter {
	return requests.Filter{
		Model:      utils.CopyString(ctx.Query("model")),
		RouteKind:  utils.CopyString(ctx.Query("route")),
		ErrorsOnly: ctx.Query("errors") == "1",
	}
}

// requests handles GET /requests: the explorer page, or (htmx) the results
// block for the filter and cursor.
func (c *Console) requests(ctx *fiber.Ctx) error {
	f := requestFilter(ctx)
	res := requests.ResultsProps{Filter: f, Cursor: utils.CopyString(ctx.Query("cursor"))}
	status := fiber.StatusOK
	if c.d.Reader == nil {
		return c.fail(ctx, errAnalyticsMissing)
	}
	page, err := c.d.Reader.ListRequests(ctx.UserContext(), AuthOf(ctx).OrgID, analytics.RequestFilter{
		Model: f.Model, RouteKind: f.RouteKind, ErrorsOnly: f.ErrorsOnly,
	}, res.Cursor, explorerPageSize)
	if err != nil {
		var msg string
		status, msg, _ = c.errorText(ctx, err)
		res.Error = msg
	}
	res.Rows, res.Next = page.Requests, page.Next
	if isHTMX(ctx) {
		return c.render(ctx, status, requests.Results(res))
	}
	return c.render(ctx, status, requests.Page(requests.PageProps{Layout: c.layoutFor(ctx, "Requests", "requests"), Results: res}))
}

// timeline handles GET /requests/:id: the request row and its attempts.
func (c *Console) timeline(ctx *fiber.Ctx) error {
	if c.d.Reader == nil {
		return c.fail(ctx, errAnalyticsMissing)
	}
	id := param(ctx, "id")
	tl, err := c.d.Reader.Timeline(ctx.UserContext(), AuthOf(ctx).OrgID, id)
	if err != nil {
		return c.fail(ctx, err)
	}
	return c.render(ctx, fiber.StatusOK, requests.Timeline(requests.TimelineProps{
		Layout: c.layoutFor(ctx, "Request "+id, "requests"), RequestID: id, Timeline: tl,
	}))
}

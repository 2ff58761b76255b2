package web

import (
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/web/views/pages/requests"
)

// explorerPageSize is how many requests one explorer page shows.
const explorerPageSize = 25

// requestFilter reads the explorer's filter from the query string, as
// typed. The older "errors=1" means status "error".
func requestFilter(ctx *fiber.Ctx) requests.Filter {
	q := func(k string) string { return utils.CopyString(ctx.Query(k)) }
	f := requests.Filter{
		Model: q("model"), RouteKind: q("route"), Status: q("status"), KeyID: q("key"), From: q("from"), To: q("to"),
	}
	if f.Status == "" && q("errors") == "1" {
		f.Status = "error"
	}
	return f
}

// filterTimeLayouts are the accepted forms of from and to: a date (a whole
// UTC day) or a date and a time (UTC, to the minute).
var filterTimeLayouts = []string{time.DateOnly, "2006-01-02T15:04"}

// filterTime parses from or to; a date as "to" means the end of that day.
func filterTime(field, s string, end bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for i, layout := range filterTimeLayouts {
		t, err := time.ParseInLocation(layout, s, time.UTC)
		if err != nil {
			continue
		}
		if end && i == 0 {
			t = t.AddDate(0, 0, 1)
		}
		return t, nil
	}
	return time.Time{}, &formError{field: field, msg: "must be a date like 2026-11-29 or a UTC time like 2026-11-29T15:04"}
}

// analyticsFilter turns the form's filter into the Reader's.
func analyticsFilter(f requests.Filter) (analytics.RequestFilter, error) {
	af := analytics.RequestFilter{Model: f.Model, RouteKind: f.RouteKind, KeyID: f.KeyID}
	switch f.Status {
	case "":
	case "ok":
		af.OKOnly = true
	case "error":
		af.ErrorsOnly = true
	default:
		return af, &formError{field: "status", msg: "must be ok or error"}
	}
	var err error
	if af.From, err = filterTime("from", f.From, false); err != nil {
		return af, err
	}
	if af.To, err = filterTime("to", f.To, true); err != nil {
		return af, err
	}
	return af, nil
}

// keyOptions lists the organisation's keys for the filter; the page still
// works (without the choice) when they cannot be read.
func (c *Console) keyOptions(ctx *fiber.Ctx) []requests.KeyOption {
	ks := c.orgKeys(ctx)
	out := make([]requests.KeyOption, len(ks))
	for i, k := range ks {
		out[i] = requests.KeyOption{ID: k.ID, Label: keyLabel(k)}
	}
	return out
}

// keyNames names the organisation's keys by id ("name (rk_prefix)"); nil
// when they cannot be read (pages then show ids).
func (c *Console) keyNames(ctx *fiber.Ctx) map[string]string {
	ks := c.orgKeys(ctx)
	out := make(map[string]string, len(ks))
	for _, k := range ks {
		out[k.ID] = keyLabel(k)
	}
	return out
}

// orgKeys lists the caller's organisation's keys, nil (logged) when they
// cannot be read.
func (c *Console) orgKeys(ctx *fiber.Ctx) []tenancy.Key {
	act, err := c.api.actor(ctx)
	if err != nil {
		return nil
	}
	ks, err := c.d.Keys.List(ctx.UserContext(), act)
	if err != nil {
		c.d.Logger.WarnContext(ctx.UserContext(), "console: list keys", "err", err, "org_id", act.OrgID)
		return nil
	}
	return ks
}

func keyLabel(k tenancy.Key) string { return k.Name + " (" + k.Prefix + ")" }

// requests handles GET /requests: the explorer page, or (htmx) the results
// block for the filter and cursor. A filter that does not parse shows its
// reason in the results with 400.
func (c *Console) requests(ctx *fiber.Ctx) error {
	if id := utils.CopyString(strings.TrimSpace(ctx.Query("id"))); id != "" {
		return c.findRequest(ctx, id)
	}
	f := requestFilter(ctx)
	res := requests.ResultsProps{Filter: f, Cursor: utils.CopyString(ctx.Query("cursor"))}
	status := fiber.StatusOK
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	af, err := analyticsFilter(f)
	var page analytics.RequestPage
	if err == nil {
		page, err = c.d.Reader.ListRequests(ctx.UserContext(), act.OrgID, af, res.Cursor, explorerPageSize)
	}
	var fe *formError
	switch {
	case errors.As(err, &fe):
		status, res.Error = fiber.StatusBadRequest, fieldLabel(fe.field)+" "+fe.msg+"."
	case err != nil:
		status, res.Error, _ = c.errorText(ctx, err)
	}
	res.Rows, res.Next, res.SearchedFrom, res.KeyNames = page.Requests, page.Next, page.SearchedFrom, c.keyNames(ctx)
	if isHTMX(ctx) {
		return c.render(ctx, status, requests.Results(res))
	}
	return c.render(ctx, status, requests.Page(requests.PageProps{
		Layout: c.layoutFor(ctx, "Requests", "requests"), Keys: c.keyOptions(ctx), Results: res,
	}))
}

// fieldLabel is how the explorer names a filter field in messages.
func fieldLabel(field string) string {
	switch field {
	case "from":
		return "From"
	case "to":
		return "To"
	case "status":
		return "Status"
	case "range":
		return "Range"
	}
	return field
}

// timeline handles GET /requests/:id: the request row and its attempts.
func (c *Console) timeline(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	id := param(ctx, "id")
	tl, err := c.d.Reader.Timeline(ctx.UserContext(), act.OrgID, id)
	if err != nil {
		return c.fail(ctx, err)
	}
	content, note := c.timelineContent(ctx, id)
	keyID := ""
	if tl.Request != nil {
		keyID = tl.Request.KeyID
	} else if len(tl.Attempts) > 0 {
		keyID = tl.Attempts[0].KeyID
	}
	name, ok := c.keyNames(ctx)[keyID]
	if !ok {
		name = keyID
	}
	return c.render(ctx, fiber.StatusOK, requests.Timeline(requests.TimelineProps{
		Layout: c.layoutFor(ctx, "Request "+id, "requests"), RequestID: id, Timeline: tl, KeyName: name,
		Waterfall: requests.NewWaterfall(tl), Content: content, ContentNote: note,
	}))
}

// findRequest answers the explorer's search by request id: the request's
// page when the organisation has it (through HX-Redirect for htmx), else the
// explorer with a not-found message and 404.
func (c *Console) findRequest(ctx *fiber.Ctx, id string) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	_, err = c.d.Reader.Timeline(ctx.UserContext(), act.OrgID, id)
	switch {
	case err == nil:
		target := "/requests/" + url.PathEscape(id)
		if isHTMX(ctx) {
			ctx.Set("HX-Redirect", target)
			return ctx.SendStatus(fiber.StatusNoContent)
		}
		return ctx.Redirect(target, fiber.StatusSeeOther)
	case !errors.Is(err, analytics.ErrNotFound):
		return c.fail(ctx, err)
	}
	res := requests.ResultsProps{Error: "No request with id " + id + " in this organisation."}
	return c.render(ctx, fiber.StatusNotFound, requests.Page(requests.PageProps{
		Layout: c.layoutFor(ctx, "Requests", "requests"), Keys: c.keyOptions(ctx), Results: res,
	}))
}

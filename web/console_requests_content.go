package web

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/web/views/components"
	"github.com/heddle-gw/heddle/web/views/pages/requests"
)

// Why a request's page shows no content.
const (
	contentNotStored   = "Content not stored: this organisation does not store prompts and responses (an admin can opt in under Organisation > Privacy), or it expired or was deleted."
	contentUnavailable = "Content cannot be shown right now."
	contentHidden      = "Content hidden: only admins and owners read stored prompts and responses."
)

// timelineContent is the stored content of request id for the page, or
// nil and the reason there is none. Failures never fail the page.
func (c *Console) timelineContent(ctx *fiber.Ctx, id string) (*requests.Content, string) {
	act, err := c.api.actor(ctx)
	if err != nil {
		return nil, contentUnavailable
	}
	ct, err := c.api.requestContent(ctx.UserContext(), act, id)
	switch {
	case errors.Is(err, analytics.ErrNotFound):
		return nil, contentNotStored
	case errors.Is(err, tenancy.ErrForbidden):
		return nil, contentHidden
	case errors.Is(err, errContentUnreadable):
		return nil, "Content stored but unreadable: it was sealed under a data key that was since replaced."
	case err != nil:
		c.d.Logger.WarnContext(ctx.UserContext(), "stored content not shown", "request_id", id, "err", err)
		return nil, contentUnavailable
	}
	return &requests.Content{Request: indentJSON(ct.Request), Response: indentJSON(ct.Response),
		RequestTruncated: ct.RequestTruncated, ResponseTruncated: ct.ResponseTruncated, Expires: components.Time(ct.ExpiresAt)}, ""
}

// indentJSON pretty-prints s when it is JSON, else returns it unchanged.
func indentJSON(s string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(s), "", "  "); err != nil {
		return s
	}
	return b.String()
}

package web

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/tenancy"
)

// Errors of the privacy surfaces.
var (
	errContentUnreadable = errors.New("web: stored content was sealed under a replaced data key")
)

// privacyView is the body of GET and PUT /api/v1/privacy.
type privacyView struct {
	StoreContent  bool       `json:"store_content"`
	RetentionDays int        `json:"retention_days"`
	UpdatedAt     *time.Time `json:"updated_at"`
}

func viewPrivacy(s analytics.PrivacySettings) privacyView {
	v := privacyView{StoreContent: s.StoreContent, RetentionDays: s.RetentionDays}
	if !s.UpdatedAt.IsZero() {
		u := s.UpdatedAt.UTC()
		v.UpdatedAt = &u
	}
	return v
}

// privacyRequest is the body of PUT /api/v1/privacy: the whole settings. A
// retention_days absent is analytics.DefaultRetentionDays.
type privacyRequest struct {
	StoreContent  *bool `json:"store_content"`
	RetentionDays *int  `json:"retention_days"`
}

func (r privacyRequest) settings() (analytics.PrivacySettings, error) {
	if r.StoreContent == nil {
		return analytics.PrivacySettings{}, &fieldError{field: "store_content", msg: "store_content is required (true or false)"}
	}
	s := analytics.PrivacySettings{StoreContent: *r.StoreContent, RetentionDays: analytics.DefaultRetentionDays}
	if r.RetentionDays != nil {
		s.RetentionDays = *r.RetentionDays
	}
	return s, nil
}

// privacyError gives an invalid setting the web layer's field error (so
// the answer names the field) while keeping its analytics sentinel.
func privacyError(err error) error {
	var fe *analytics.FieldError
	if errors.As(err, &fe) {
		return fmt.Errorf("%w%w", &fieldError{field: fe.Field, msg: fe.Public()}, fe)
	}
	return err
}

// getPrivacy handles GET /api/v1/privacy: whether the organisation stores
// prompt and response content, and for how many days.
func (a *API) getPrivacy(c *fiber.Ctx) error {
	act, err := a.settingsActor(c, false)
	if err != nil {
		return a.fail(c, err)
	}
	s, err := a.d.Privacy.Settings(c.UserContext(), act.OrgID)
	if err != nil {
		return a.fail(c, err)
	}
	return c.JSON(viewPrivacy(s))
}

// putPrivacy handles PUT /api/v1/privacy (admins and owners). Turning
// storage off deletes nothing: stored content expires as planned (or is
// deleted with DELETE /api/v1/privacy/content).
func (a *API) putPrivacy(c *fiber.Ctx) error {
	act, err := a.settingsActor(c, true)
	if err != nil {
		return a.fail(c, err)
	}
	var req privacyRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	s, err := req.settings()
	if err != nil {
		return a.fail(c, err)
	}
	saved, err := a.savePrivacy(c.UserContext(), act, s, "api")
	if err != nil {
		return a.fail(c, err)
	}
	return c.JSON(viewPrivacy(saved))
}

// savePrivacy validates and stores s (the API and the console both save
// through it) and logs the change.
func (a *API) savePrivacy(ctx context.Context, act tenancy.Actor, s analytics.PrivacySettings, via string) (analytics.PrivacySettings, error) {
	saved, err := a.d.Privacy.SetSettings(ctx, act.OrgID, s)
	if err != nil {
		return saved, privacyError(err)
	}
	a.d.Logger.InfoContext(ctx, "organisation privacy settings updated", "org_id", act.OrgID, "user_id", act.UserID,
		"store_content", saved.StoreContent, "retention_days", saved.RetentionDays, "via", via)
	return saved, nil
}

// deleteContent handles DELETE /api/v1/privacy/content (admins and owners):
// every stored prompt and response of the organisation is deleted now.
func (a *API) deleteContent(c *fiber.Ctx) error {
	act, err := a.settingsActor(c, true)
	if err != nil {
		return a.fail(c, err)
	}
	n, err := a.purgeContent(c.UserContext(), act, "api")
	if err != nil {
		return a.fail(c, err)
	}
	return c.JSON(fiber.Map{"deleted": n})
}

// purgeContent deletes act's organisation's stored content and logs it.
func (a *API) purgeContent(ctx context.Context, act tenancy.Actor, via string) (int64, error) {
	n, err := a.d.Privacy.DeleteAll(ctx, act.OrgID)
	if err != nil {
		return 0, err
	}
	a.d.Logger.InfoContext(ctx, "organisation stored content deleted", "org_id", act.OrgID, "user_id", act.UserID, "rows", n, "via", via)
	return n, nil
}

// contentView is the body of GET /api/v1/requests/{id}/content. Request
// and Response are JSON text (cut, and then no longer valid JSON, when the
// truncated flag is set).
type contentView struct {
	RequestID         string    `json:"request_id"`
	KeyID             string    `json:"key_id"`
	CreatedAt         time.Time `json:"created_at"`
	ExpiresAt         time.Time `json:"expires_at"`
	Request           string    `json:"request"`
	Response          string    `json:"response"`
	RequestTruncated  bool      `json:"request_truncated"`
	ResponseTruncated bool      `json:"response_truncated"`
}

// requestContent reads act's organisation's stored content of id: 404 when
// there is none (or it is another organisation's), tenancy.ErrForbidden
// unless act is an admin or owner (stored prompts are not for every member).
func (a *API) requestContent(ctx context.Context, act tenancy.Actor, id string) (analytics.Content, error) {
	if !act.Can(tenancy.PermReadContent) {
		return analytics.Content{}, tenancy.ErrForbidden
	}
	ct, err := a.d.Privacy.Get(ctx, act.OrgID, id)
	if errors.Is(err, tenancy.ErrDataKeyChanged) {
		return ct, fmt.Errorf("%w: %w", errContentUnreadable, err)
	}
	return ct, err
}

// getContent handles GET /api/v1/requests/{id}/content.
func (a *API) getContent(c *fiber.Ctx) error {
	act, err := a.settingsActor(c, false)
	if err != nil {
		return a.fail(c, err)
	}
	ct, err := a.requestContent(c.UserContext(), act, param(c, "id"))
	if err != nil {
		return a.fail(c, err)
	}
	return c.JSON(contentView{RequestID: ct.RequestID, KeyID: ct.KeyID, CreatedAt: ct.CreatedAt, ExpiresAt: ct.ExpiresAt,
		Request: ct.Request, Response: ct.Response, RequestTruncated: ct.RequestTruncated, ResponseTruncated: ct.ResponseTruncated})
}

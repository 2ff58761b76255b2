package web

import (
	"errors"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/web/views/components"
	"github.com/heddle-gw/heddle/web/views/pages/org"
)

// privacySection loads the organisation's content-storage section.
func (c *Console) privacySection(ctx *fiber.Ctx, act tenancy.Actor) (*org.Privacy, error) {
	s, err := c.d.Privacy.Settings(ctx.UserContext(), act.OrgID)
	if err != nil {
		return nil, err
	}
	p := &org.Privacy{CSRF: sessionOf(ctx).CSRF, StoreContent: s.StoreContent, RetentionDays: strconv.Itoa(s.RetentionDays),
		CanManage: act.Role.AtLeast(tenancy.RoleAdmin)}
	p.FormStore, p.FormDays = p.StoreContent, p.RetentionDays
	if !s.UpdatedAt.IsZero() {
		p.Updated = components.Time(s.UpdatedAt)
	}
	return p, nil
}

// privacyAnswer renders the section for htmx, or the page (or a redirect
// after success) otherwise.
func (c *Console) privacyAnswer(ctx *fiber.Ctx, act tenancy.Actor, status int, sec *org.Privacy) error {
	if isHTMX(ctx) {
		return c.render(ctx, status, org.PrivacySection(*sec))
	}
	if status < 300 {
		return ctx.Redirect("/org", fiber.StatusSeeOther)
	}
	p, err := c.orgProps(ctx, act)
	if err != nil {
		return c.fail(ctx, err)
	}
	p.Privacy = sec
	return c.render(ctx, status, org.Page(p))
}

// privacyActor resolves an admin or owner for the privacy forms.
func (c *Console) settingsActor(ctx *fiber.Ctx) (tenancy.Actor, error) {
	return c.api.settingsActor(ctx, true)
}

// orgSavePrivacy handles POST /org/privacy (admins and owners): the
// section with the saved settings, or re-rendered with the refused value
// and its reason (422).
func (c *Console) orgSavePrivacy(ctx *fiber.Ctx) error {
	act, err := c.settingsActor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	store := formValue(ctx, "store_content") == "on"
	typed := formValue(ctx, "retention_days")
	s := analytics.PrivacySettings{StoreContent: store}
	days, perr := strconv.Atoi(typed)
	if perr == nil {
		s.RetentionDays = days
		_, err = c.api.savePrivacy(ctx.UserContext(), act, s, "console")
	} else {
		err = &analytics.FieldError{Field: "retention_days", Message: "must be a whole number of days from 1 to 90"}
	}
	var fe *analytics.FieldError
	if errors.As(err, &fe) {
		sec, lerr := c.privacySection(ctx, act)
		if lerr != nil {
			return c.fail(ctx, lerr)
		}
		sec.FormStore, sec.FormDays = store, typed
		sec.Error, sec.Fields = "Please correct the field marked below.", map[string]string{fe.Field: fe.Message}
		return c.privacyAnswer(ctx, act, fiber.StatusUnprocessableEntity, sec)
	}
	if err != nil {
		return c.fail(ctx, err)
	}
	sec, err := c.privacySection(ctx, act)
	if err != nil {
		return c.fail(ctx, err)
	}
	sec.Saved = "Saved: content storage " + map[bool]string{true: "on", false: "off (content already stored is kept until it expires)"}[store] + "."
	return c.privacyAnswer(ctx, act, fiber.StatusOK, sec)
}

// orgDeleteContent handles POST /org/privacy/delete (admins and owners):
// every stored prompt and response of the organisation is deleted now.
func (c *Console) orgDeleteContent(ctx *fiber.Ctx) error {
	act, err := c.settingsActor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	n, err := c.api.purgeContent(ctx.UserContext(), act, "console")
	if err != nil {
		return c.fail(ctx, err)
	}
	sec, err := c.privacySection(ctx, act)
	if err != nil {
		return c.fail(ctx, err)
	}
	sec.Saved = "Deleted " + strconv.FormatInt(n, 10) + " stored requests' content."
	return c.privacyAnswer(ctx, act, fiber.StatusOK, sec)
}

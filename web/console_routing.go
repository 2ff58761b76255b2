package web

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/web/views/components"
	"github.com/heddle-gw/heddle/web/views/layout"
	rview "github.com/heddle-gw/heddle/web/views/pages/routing"
)

// routingForm is the form showing s.
func routingForm(s routing.OrgSettings, csrf string, canEdit bool) rview.FormProps {
	f := rview.FormProps{
		CSRF: csrf, Allow: strings.Join(s.Allow, "\n"), Deny: strings.Join(s.Deny, "\n"),
		Aliases: aliasLines(s.Aliases), CacheBypass: s.CacheBypass, BundleID: s.BundleID, CanEdit: canEdit,
	}
	if s.Alpha != nil {
		f.Alpha = strconv.FormatFloat(*s.Alpha, 'f', -1, 64)
	}
	if !s.UpdatedAt.IsZero() {
		f.Updated = components.Time(s.UpdatedAt)
	}
	return f
}

// routingPage handles GET /routing: the organisation's routing settings,
// editable by admins and owners, and its trained bundles.
func (c *Console) routingPage(ctx *fiber.Ctx) error {
	act, err := c.api.settingsActor(ctx, false)
	if err != nil {
		return c.fail(ctx, err)
	}
	s, err := c.d.RoutingSettings.GetSettings(ctx.UserContext(), act.OrgID)
	if err != nil {
		return c.fail(ctx, err)
	}
	lp := c.layoutFor(ctx, "Routing", "routing")
	canEdit := act.Role.AtLeast(tenancy.RoleAdmin)
	p, err := c.routingContent(ctx, act.OrgID, s.BundleID, routingForm(s, lp.CSRF, canEdit), c.trainForm(lp.CSRF))
	if err != nil {
		return c.fail(ctx, err)
	}
	return c.renderRouting(ctx, fiber.StatusOK, lp, p)
}

// renderRouting writes the page's main area for htmx, the whole page
// otherwise.
func (c *Console) renderRouting(ctx *fiber.Ctx, status int, lp layout.Props, p rview.ContentProps) error {
	if isHTMX(ctx) {
		return c.render(ctx, status, rview.Content(p))
	}
	return c.render(ctx, status, rview.Page(rview.PageProps{Layout: lp, Content: p}))
}

// modelList splits a textarea into model ids: one per line or comma
// separated, blanks dropped.
func modelList(s string) []string {
	var out []string
	for _, m := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' || r == ',' }) {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	return out
}

// aliasLines shows aliases one "name = target" per line, sorted by name.
func aliasLines(m map[string]string) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	lines := make([]string, len(names))
	for i, n := range names {
		lines[i] = n + " = " + m[n]
	}
	return strings.Join(lines, "\n")
}

// parseAliasLines reads "name = target" lines (blank lines skipped); a line
// without "=" or a name given twice is an error on the aliases field.
func parseAliasLines(text string) (map[string]string, error) {
	out := map[string]string{}
	for i, line := range strings.Split(strings.ReplaceAll(text, "\r", ""), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, target, ok := strings.Cut(line, "=")
		if !ok {
			return nil, &formError{field: "aliases", msg: "line " + strconv.Itoa(i+1) + ": write name = target"}
		}
		name = strings.TrimSpace(name)
		if _, dup := out[name]; dup {
			return nil, &formError{field: "aliases", msg: "line " + strconv.Itoa(i+1) + ": " + strconv.Quote(name) + " is given twice"}
		}
		out[name] = strings.TrimSpace(target)
	}
	return out, nil
}

// routingFormInput reads the settings form; the returned props echo what
// was typed.
func routingFormInput(ctx *fiber.Ctx, csrf string) (routing.OrgSettings, rview.FormProps, error) {
	f := rview.FormProps{
		CSRF: csrf, Alpha: formValue(ctx, "alpha"), Allow: formValue(ctx, "allow"), Deny: formValue(ctx, "deny"),
		Aliases: formValue(ctx, "aliases"), CacheBypass: ctx.FormValue("cache_bypass") != "", BundleID: formValue(ctx, "bundle_id"),
		CanEdit: true,
	}
	s := routing.OrgSettings{Allow: modelList(f.Allow), Deny: modelList(f.Deny), CacheBypass: f.CacheBypass, BundleID: f.BundleID}
	aliases, err := parseAliasLines(f.Aliases)
	if err != nil {
		return s, f, err
	}
	if s.Aliases, err = routing.NormaliseAliases(aliases); err != nil {
		return s, f, err
	}
	if f.Alpha != "" {
		a, err := strconv.ParseFloat(f.Alpha, 64)
		if err != nil {
			return s, f, &formError{field: "alpha", msg: "must be a number between 0 and 1"}
		}
		s.Alpha = &a
	}
	return s, f, nil
}

// routingFieldErrors maps a settings validation error onto the form's
// fields ("allow[2]" is the allow field).
func routingFieldErrors(err error) (map[string]string, string) {
	var fe *routing.FieldError
	if errors.As(err, &fe) {
		field, _, _ := strings.Cut(fe.Field, "[")
		return map[string]string{field: fe.Error()}, "Please correct the field marked below."
	}
	return fieldErrors(err)
}

// saveRouting handles POST /routing (admins and owners): it replaces the
// settings through the admin API's validation. An invalid form re-renders
// with 422.
func (c *Console) saveRouting(ctx *fiber.Ctx) error {
	act, err := c.api.settingsActor(ctx, true)
	if err != nil {
		return c.fail(ctx, err)
	}
	lp := c.layoutFor(ctx, "Routing", "routing")
	s, f, err := routingFormInput(ctx, lp.CSRF)
	if err == nil {
		// The form has no pass-through field: keep the stored one.
		var cur routing.OrgSettings
		if cur, err = c.api.d.RoutingSettings.GetSettings(ctx.UserContext(), act.OrgID); err != nil {
			return c.fail(ctx, err)
		}
		s.PassthroughOff = cur.PassthroughOff
		err = c.api.saveRouting(ctx.UserContext(), act, s, "console")
	}
	status := fiber.StatusOK
	if err != nil {
		if !isInvalidInput(err) && !errors.Is(err, routing.ErrInvalidSettings) {
			return c.fail(ctx, err)
		}
		status = fiber.StatusUnprocessableEntity
		f.Fields, f.Error = routingFieldErrors(err)
	}
	saved, err := c.d.RoutingSettings.GetSettings(ctx.UserContext(), act.OrgID)
	if err != nil {
		return c.fail(ctx, err)
	}
	if status == fiber.StatusOK {
		f = routingForm(saved, lp.CSRF, true)
		f.Saved = true
	}
	p, err := c.routingContent(ctx, act.OrgID, saved.BundleID, f, c.trainForm(lp.CSRF))
	if err != nil {
		return c.fail(ctx, err)
	}
	return c.renderRouting(ctx, status, lp, p)
}

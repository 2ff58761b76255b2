package web

import (
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenantmodel"
	"github.com/heddle-gw/heddle/web/views/components"
	"github.com/heddle-gw/heddle/web/views/layout"
	mview "github.com/heddle-gw/heddle/web/views/pages/models"
)

// money shows a price in USD per million tokens.
func money(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func catalogRow(m catalog.Model) mview.ModelRow {
	return mview.ModelRow{ID: m.ID, Context: strconv.Itoa(m.ContextWindow), MaxOutput: strconv.Itoa(m.MaxOutput),
		Tools: m.Capabilities.Tools, Vision: m.Capabilities.Vision, Input: money(m.Price.Input), Output: money(m.Price.Output),
		CacheRead: money(m.Price.CacheRead), CacheWrite: money(m.Price.CacheWrite)}
}

func ownRow(m tenantmodel.Model) mview.ModelRow {
	r := catalogRow(m.Catalog())
	r.Provider, r.Upstream = m.Provider, m.Upstream
	return r
}

// modelsContent reads everything the page shows for act; forms carry what
// a failed submission typed.
func (c *Console) modelsContent(ctx *fiber.Ctx, svc *tenantmodel.Service, act tenancy.Actor, csrf string) (mview.ContentProps, error) {
	p := mview.ContentProps{CSRF: csrf, CanEdit: act.Role.AtLeast(tenancy.RoleAdmin)}
	uctx := ctx.UserContext()
	ps, err := svc.Providers(uctx, act)
	if err != nil {
		return p, err
	}
	ms, err := svc.Models(uctx, act)
	if err != nil {
		return p, err
	}
	count := map[string]int{}
	for _, m := range ms {
		count[m.Provider]++
		p.Models = append(p.Models, ownRow(m))
	}
	for _, pr := range ps {
		p.Providers = append(p.Providers, mview.ProviderRow{Name: pr.Name, BaseURL: pr.BaseURL,
			Created: components.Time(pr.CreatedAt), Models: count[pr.Name]})
	}
	callable, err := c.d.Models(uctx, act.OrgID)
	if err != nil {
		c.d.Logger.WarnContext(uctx, "models page: callable models unavailable", "org_id", act.OrgID, "err", err)
		p.CallableError = "The models this organisation can call cannot be read right now."
	}
	var aliases map[string]string
	if s, err := c.d.RoutingSettings.GetSettings(uctx, act.OrgID); err == nil {
		aliases = s.Aliases
	} else {
		c.d.Logger.WarnContext(uctx, "models page: aliases unavailable", "org_id", act.OrgID, "err", err)
	}
	for _, m := range callable {
		row := catalogRow(m)
		row.AliasOf = aliases[m.ID]
		p.Callable = append(p.Callable, row)
	}
	return p, nil
}

// modelsActor resolves the caller and the service.
func (c *Console) modelsActor(ctx *fiber.Ctx) (*tenantmodel.Service, tenancy.Actor, error) {
	act, err := c.api.actor(ctx)
	return c.d.TenantModels, act, err
}

// renderModels renders the content partial for htmx, else the whole page.
func (c *Console) renderModels(ctx *fiber.Ctx, status int, lp layout.Props, p mview.ContentProps) error {
	if isHTMX(ctx) {
		return c.render(ctx, status, mview.Content(p))
	}
	return c.render(ctx, status, mview.Page(mview.PageProps{Layout: lp, Content: p}))
}

// modelsPage handles GET /models.
func (c *Console) modelsPage(ctx *fiber.Ctx) error {
	svc, act, err := c.modelsActor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	lp := c.layoutFor(ctx, "Models", "models")
	p, err := c.modelsContent(ctx, svc, act, lp.CSRF)
	if err != nil {
		return c.fail(ctx, err)
	}
	return c.renderModels(ctx, fiber.StatusOK, lp, p)
}

// addModelsProvider handles POST /models/providers (admins and owners). An
// invalid form re-renders with 422, a taken name with 409.
func (c *Console) addModelsProvider(ctx *fiber.Ctx) error {
	svc, act, err := c.modelsActor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	lp := c.layoutFor(ctx, "Models", "models")
	form := mview.ProviderForm{Name: formValue(ctx, "name"), BaseURL: formValue(ctx, "base_url")}
	_, err = c.api.createProvider(ctx, svc, act, providerRequest{Name: form.Name, BaseURL: form.BaseURL,
		Secret: utils.CopyString(ctx.FormValue("secret"))})
	return c.afterModelsChange(ctx, svc, act, lp, err, "Provider "+form.Name+" added.", func(p *mview.ContentProps, msg string, fields map[string]string) {
		form.Error, form.Fields = msg, fields
		p.ProviderForm = form
	})
}

// addModelsModel handles POST /models (admins and owners).
func (c *Console) addModelsModel(ctx *fiber.Ctx) error {
	svc, act, err := c.modelsActor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	lp := c.layoutFor(ctx, "Models", "models")
	form := mview.ModelForm{ID: formValue(ctx, "id"), Provider: formValue(ctx, "provider"), Upstream: formValue(ctx, "upstream"),
		ContextWindow: formValue(ctx, "context_window"), MaxOutput: formValue(ctx, "max_output"),
		Tools: ctx.FormValue("tools") != "", Vision: ctx.FormValue("vision") != "",
		Input: formValue(ctx, "price.input"), Output: formValue(ctx, "price.output"),
		CacheRead: formValue(ctx, "price.cache_read"), CacheWrite: formValue(ctx, "price.cache_write")}
	in, err := modelFormInput(form)
	if err == nil {
		_, err = c.api.createModel(ctx.UserContext(), svc, act, in)
	}
	return c.afterModelsChange(ctx, svc, act, lp, err, "Model "+form.ID+" added.", func(p *mview.ContentProps, msg string, fields map[string]string) {
		form.Error, form.Fields = msg, fields
		p.ModelForm = form
	})
}

// modelFormInput parses the numbers of the add-model form; a bad number is
// an error on its field.
func modelFormInput(f mview.ModelForm) (tenantmodel.ModelInput, error) {
	in := tenantmodel.ModelInput{ID: f.ID, Provider: f.Provider, Upstream: f.Upstream, Tools: f.Tools, Vision: f.Vision}
	for _, n := range []struct {
		field, raw string
		dst        *int
	}{{"context_window", f.ContextWindow, &in.ContextWindow}, {"max_output", f.MaxOutput, &in.MaxOutput}} {
		v, err := strconv.Atoi(n.raw)
		if err != nil {
			return in, &formError{field: n.field, msg: "must be a whole number of tokens"}
		}
		*n.dst = v
	}
	for _, n := range []struct {
		field, raw string
		dst        *float64
	}{{"price.input", f.Input, &in.Price.Input}, {"price.output", f.Output, &in.Price.Output},
		{"price.cache_read", f.CacheRead, &in.Price.CacheRead}, {"price.cache_write", f.CacheWrite, &in.Price.CacheWrite}} {
		if n.raw == "" {
			continue // no price: zero
		}
		v, err := strconv.ParseFloat(n.raw, 64)
		if err != nil {
			return in, &formError{field: n.field, msg: "must be a number of USD per million tokens"}
		}
		*n.dst = v
	}
	return in, nil
}

// deleteModelsProvider handles POST /models/providers/delete; a provider
// that still has models is refused with 409 and a message on the page.
func (c *Console) deleteModelsProvider(ctx *fiber.Ctx) error {
	svc, act, err := c.modelsActor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	lp := c.layoutFor(ctx, "Models", "models")
	name := formValue(ctx, "name")
	err = c.api.removeProvider(ctx, svc, act, name)
	return c.afterModelsChange(ctx, svc, act, lp, err, "Provider "+name+" deleted.", nil)
}

// deleteModelsModel handles POST /models/delete.
func (c *Console) deleteModelsModel(ctx *fiber.Ctx) error {
	svc, act, err := c.modelsActor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	lp := c.layoutFor(ctx, "Models", "models")
	id := formValue(ctx, "id")
	if err = svc.DeleteModel(ctx.UserContext(), act, id); err == nil {
		c.d.Logger.InfoContext(ctx.UserContext(), "tenant model deleted", "org_id", act.OrgID, "user_id", act.UserID, "model", id, "via", "console")
	}
	return c.afterModelsChange(ctx, svc, act, lp, err, "Model "+id+" deleted.", nil)
}

// afterModelsChange renders the page after a change: the notice on
// success (a redirect without htmx), else the error (on the form that
// caused it when onForm is set) with 422 for invalid input and 409 for a
// conflict. Other errors are the console's error page.
func (c *Console) afterModelsChange(ctx *fiber.Ctx, svc *tenantmodel.Service, act tenancy.Actor, lp layout.Props, err error,
	notice string, onForm func(p *mview.ContentProps, msg string, fields map[string]string)) error {
	if err == nil && !isHTMX(ctx) {
		return ctx.Redirect("/models", fiber.StatusSeeOther)
	}
	status := fiber.StatusOK
	var msg string
	var fields map[string]string
	switch st, d, known := classify(err); {
	case err == nil:
	case isInvalidInput(err):
		status = fiber.StatusUnprocessableEntity
		fields, msg = fieldErrors(err)
	case known && (st == fiber.StatusConflict || st == fiber.StatusNotFound):
		status, msg = st, d.Message
	default:
		return c.fail(ctx, err)
	}
	p, rerr := c.modelsContent(ctx, svc, act, lp.CSRF)
	if rerr != nil {
		return c.fail(ctx, rerr)
	}
	switch {
	case err == nil:
		p.Notice = notice
	case onForm != nil:
		onForm(&p, msg, fields)
	default:
		p.Error = msg
	}
	return c.renderModels(ctx, status, lp, p)
}

package web

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/web/views/components"
	rview "github.com/heddle-gw/heddle/web/views/pages/routing"
)

// bundleHashChars is how much of a bundle's data hash the table shows.
const bundleHashChars = 12

// routingContent builds the routing page's main area around the settings
// form f: orgID's bundles as choices of f and as the table (activeID, the
// stored settings' bundle, marked active) and, when f is editable, the
// training form train.
func (c *Console) routingContent(ctx *fiber.Ctx, orgID, activeID string, f rview.FormProps, train rview.TrainProps) (rview.ContentProps, error) {
	bs, err := c.d.RoutingBundles.ListBundles(ctx.UserContext(), orgID)
	if err != nil {
		return rview.ContentProps{}, err
	}
	p := rview.ContentProps{Train: train, CanEdit: f.CanEdit, Try: rview.TryProps{CSRF: train.CSRF}}
	f.DefaultAlpha = strconv.FormatFloat(c.d.DefaultAlpha, 'f', -1, 64)
	for _, b := range bs {
		f.Bundles = append(f.Bundles, rview.Bundle{
			ID:    b.ID,
			Label: b.ID + " (" + strconv.Itoa(len(b.Models)) + " models, " + strconv.Itoa(b.Samples) + " samples, " + components.Time(b.CreatedAt) + ")",
		})
		p.Bundles = append(p.Bundles, rview.BundleRow{
			ID: b.ID, Models: strings.Join(b.Models, ", "), Samples: b.Samples, K: b.K,
			Created: components.Time(b.CreatedAt), DataHash: b.DataHash[:min(len(b.DataHash), bundleHashChars)],
			Active: b.ID == activeID,
		})
	}
	p.Form = f
	return p, nil
}

// trainForm is the empty training form with the bounds the API applies.
func (c *Console) trainForm(csrf string) rview.TrainProps {
	return rview.TrainProps{
		CSRF: csrf, MaxBytes: byteSize(c.d.MaxBundleBytes),
		MinSamples: routing.DefaultOrgMinSamples, MaxSamples: routing.DefaultOrgMaxSamples,
	}
}

// byteSize shows n bytes in MB or kB when it is a whole number of them.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " kB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// trainBundle handles POST /routing/bundles (admins and owners): a
// multipart form whose "file" is JSONL evaluation data. The bundle is
// trained through the admin API's training path (same bounds, same one
// training at a time) while the request waits, stored and listed, not
// activated. A refused upload re-renders the page with 4xx and the reason,
// naming the line and field, in the training card.
func (c *Console) trainBundle(ctx *fiber.Ctx) error {
	act, err := c.api.settingsActor(ctx, true)
	if err != nil {
		return c.fail(ctx, err)
	}
	lp := c.layoutFor(ctx, "Routing", "routing")
	train := c.trainForm(lp.CSRF)
	status := fiber.StatusOK
	body, err := c.uploadedFile(ctx, "file")
	var t trainedBundle
	if err == nil {
		t, err = c.api.trainBundle(ctx.UserContext(), act, body, "console")
	}
	if err != nil {
		var ok bool
		if status, train.Error, ok = c.trainError(err); !ok {
			return c.fail(ctx, err)
		}
	} else {
		train.TrainedID = t.Info.ID
		train.Trained = "Bundle " + t.Info.ID + " trained: " + strconv.Itoa(t.Info.K) + " clusters, " +
			strconv.Itoa(t.Info.Samples) + " samples, models " + strings.Join(t.Info.Models, ", ") +
			"; select it as the active bundle above and save to activate it."
	}
	s, err := c.d.RoutingSettings.GetSettings(ctx.UserContext(), act.OrgID)
	if err != nil {
		return c.fail(ctx, err)
	}
	p, err := c.routingContent(ctx, act.OrgID, s.BundleID, routingForm(s, lp.CSRF, true), train)
	if err != nil {
		return c.fail(ctx, err)
	}
	return c.renderRouting(ctx, status, lp, p)
}

// uploadedFile reads the multipart file field name, refusing one larger
// than the API's bound before reading it.
func (c *Console) uploadedFile(ctx *fiber.Ctx, name string) ([]byte, error) {
	fh, err := ctx.FormFile(name)
	if err != nil || (fh.Filename == "" && fh.Size == 0) {
		return nil, &formError{field: name, msg: "choose a JSONL file to upload"}
	}
	limit := c.d.MaxBundleBytes
	if fh.Size > limit {
		return nil, errBodyTooLarge
	}
	f, err := fh.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	return b, nil
}

// trainError is the status and the message shown in the training card for
// a refused upload; ok is false for errors that are not the upload's fault.
func (c *Console) trainError(err error) (status int, msg string, ok bool) {
	const prefix = "No bundle was trained: "
	var rf *routing.FieldError
	var fe *formError
	switch {
	case errors.As(err, &fe):
		return fiber.StatusUnprocessableEntity, prefix + fe.field + ": " + fe.msg + ".", true
	case errors.Is(err, errBodyTooLarge):
		return fiber.StatusRequestEntityTooLarge, prefix + "file: larger than " + byteSize(c.d.MaxBundleBytes) + ".", true
	case errors.Is(err, errTrainingBusy):
		return fiber.StatusTooManyRequests, prefix + "another bundle is being trained on this deployment; try again in a minute.", true
	case errors.As(err, &rf) && (errors.Is(err, routing.ErrData) || errors.Is(err, routing.ErrDataTooLarge)):
		status = fiber.StatusUnprocessableEntity
		if errors.Is(err, routing.ErrDataTooLarge) {
			status = fiber.StatusRequestEntityTooLarge
		}
		field := rf.Field
		if field == "body" {
			field = "file"
		}
		return status, prefix + field + ": " + rf.Message + ".", true
	case errors.Is(err, routing.ErrData):
		return fiber.StatusUnprocessableEntity, prefix + "the file could not be read as JSONL.", true
	}
	return 0, "", false
}

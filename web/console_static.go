package web

import (
	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/web/static"
)

// asset handles GET /static/:hash/:name. The hash must be the asset's
// current content hash, so a URL always names one content and is cached
// for a year; a stale hash is a 404.
func (c *Console) asset(ctx *fiber.Ctx) error {
	a, ok := static.Lookup(ctx.Params("name"))
	if !ok || a.Hash != ctx.Params("hash") {
		return ctx.SendStatus(fiber.StatusNotFound)
	}
	ctx.Set(fiber.HeaderContentType, a.ContentType)
	ctx.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
	ctx.Set("X-Content-Type-Options", "nosniff")
	return ctx.Send(a.Body)
}

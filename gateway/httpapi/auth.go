package httpapi

import (
	"strings"

	"github.com/gofiber/fiber/v2"
)

// presentedKey returns the API key in any of the accepted places:
// Authorization: Bearer, x-api-key, x-goog-api-key, or ?key=.
func presentedKey(c *fiber.Ctx) string {
	if v := c.Get(fiber.HeaderAuthorization); v != "" {
		if len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
			return strings.TrimSpace(v[7:])
		}
		return ""
	}
	if v := c.Get("x-api-key"); v != "" {
		return strings.TrimSpace(v)
	}
	if v := c.Get("x-goog-api-key"); v != "" {
		return strings.TrimSpace(v)
	}
	return strings.TrimSpace(c.Query("key"))
}

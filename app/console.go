package app

import "github.com/gofiber/fiber/v2"

// mountConsole mounts the admin JSON API (and, later, the console pages).
func mountConsole(app *fiber.App, c *components) {}

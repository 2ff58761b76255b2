// Command heddle is a multi-tenant LLM gateway and model router.
package main

import (
	"os"

	"github.com/heddle-gw/heddle/app"
)

func main() { os.Exit(app.Main(os.Args[1:], os.Getenv)) }

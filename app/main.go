package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `heddle: a multi-tenant LLM gateway and model router

Usage:
  heddle [serve]                 run the gateway and console (default)
  heddle migrate                 apply database migrations and exit
  heddle health [URL]            exit 0 when the local server's /readyz answers 200
  heddle keys create --org ORG [--name N] [--scopes inference,route]
                                 issue an rk_ key (printed once)
  heddle vault init FILE         write a new master keyset file (kept if it exists)
  heddle vault rotate [--reencrypt-org ORG]
                                 re-wrap every organisation's data keyset (the platform's too) under a new master key
  heddle operator add EMAIL      grant a signed-up user the platform operator role
  heddle bundle train|eval ...   train or evaluate a routing bundle
  heddle models pull NAME        download a Hugging Face embedding model

Configuration comes from HEDDLE_* environment variables (see README.md).
`

// Main runs the CLI with args (without the program name) and returns the exit code.
func Main(args []string, getenv func(string) string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, args, getenv, os.Stdout, os.Stderr)
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(os.Stderr, "heddle:", err)
	return 1
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serveCommand(ctx, getenv, stderr)
	case "migrate":
		return migrateCommand(ctx, getenv, stderr)
	case "health":
		return healthCommand(ctx, args, getenv, stdout)
	case "keys":
		return keysCommand(ctx, args, getenv, stdout, stderr)
	case "vault":
		return vaultCommand(ctx, args, getenv, stdout, stderr)
	case "operator":
		return operatorCommand(ctx, args, getenv, stdout, stderr)
	case "bundle":
		return bundleCommand(ctx, args, stdout)
	case "models":
		return modelsCommand(ctx, args, stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", cmd)
}

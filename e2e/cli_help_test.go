package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/internal/testwait"
)

// TestCLIHelpHasNoSideEffects: every subcommand (and subcommand of one)
// answers --help and -h with its usage and exit 0, and none of them starts
// a server, opens a database or writes a file.
func TestCLIHelpHasNoSideEffects(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	work := t.TempDir()
	dataDir := filepath.Join(work, "data")
	env := map[string]string{"HEDDLE_DATA_DIR": dataDir, "HEDDLE_ADDR": "127.0.0.1:1", "HOME": work}
	for _, cmd := range [][]string{
		{}, {"serve"}, {"migrate"}, {"health"}, {"connect"}, {"connect", "codex"}, {"keys"}, {"keys", "create"},
		{"vault"}, {"vault", "init"}, {"vault", "rotate"}, {"bundle"}, {"bundle", "train"}, {"bundle", "eval"},
		{"models"}, {"models", "pull"}, {"catalog"}, {"catalog", "import"}, {"version"},
	} {
		for _, flag := range []string{"--help", "-h"} {
			args := append(append([]string{}, cmd...), flag)
			out, err := runCLI(ctx, t, env, args...)
			if err != nil || !strings.Contains(out, "Usage") {
				t.Errorf("heddle %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	}
	if entries, _ := os.ReadDir(work); len(entries) != 0 {
		t.Errorf("help runs left %d entries in the working and data directories", len(entries))
	}
	if entries, _ := os.ReadDir("."); len(entries) > 0 {
		for _, e := range entries {
			if e.Name() == "--help" || e.Name() == "-h" {
				t.Errorf("a help run wrote %s", e.Name())
			}
		}
	}
	out, err := runCLI(ctx, t, nil, "--version")
	if err != nil || !strings.HasPrefix(out, "heddle ") || !strings.Contains(out, "go1.") {
		t.Errorf("--version: %v %q", err, out)
	}
	t.Logf("heddle --version: %s", strings.TrimSpace(out))
	if out, err := runCLI(ctx, t, nil, "bundle", "frobnicate"); err == nil || !strings.Contains(out, "train, eval or cache-eval") {
		t.Errorf("bundle frobnicate: %v %s", err, out)
	}
}

// TestMisspelledVariableWarning: a HEDDLE_* variable nothing reads is
// reported at boot with the nearest known name, and the server still starts.
func TestMisspelledVariableWarning(t *testing.T) {
	in := startHeddle(t, map[string]string{"HEDDLE_CACHE_TLL": "5m", "HEDDLE_SOMETHING_ELSE": "1"})
	testwait.Until(t, 10*time.Second, "the misspelled-variable warning", func() bool {
		return in.logContains("unknown environment variable HEDDLE_CACHE_TLL is ignored; did you mean HEDDLE_CACHE_TTL?")
	})
	if !in.logContains(`"msg":"unknown environment variable HEDDLE_SOMETHING_ELSE is ignored"`) {
		t.Errorf("no warning for HEDDLE_SOMETHING_ELSE:\n%s", in.logs.String())
	}
	for _, line := range strings.Split(in.logs.String(), "\n") {
		if strings.Contains(line, "unknown environment variable") {
			t.Logf("%s", line)
		}
	}
}

// TestBadStoreURLsOneLine: a malformed or unreachable store URL is one line
// on stderr naming the variable, without the password it carries.
func TestBadStoreURLsOneLine(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for name, env := range map[string]map[string]string{
		"postgres with a space": {"HEDDLE_DATABASE_URL": "postgres://heddle:s3cretpw@bad host:5432/heddle"},
		"postgres scheme":       {"HEDDLE_DATABASE_URL": "mysql://heddle:s3cretpw@127.0.0.1/heddle"},
		"postgres unreachable":  {"HEDDLE_DATABASE_URL": "postgres://heddle:s3cretpw@127.0.0.1:1/heddle?connect_timeout=2"},
		"clickhouse over http":  {"HEDDLE_CLICKHOUSE_URL": "http://default:s3cretpw@127.0.0.1:8123/heddle"},
		"redis scheme":          {"HEDDLE_REDIS_URL": "s3cretpw@127.0.0.1:6379"},
	} {
		env["HEDDLE_DATA_DIR"] = t.TempDir()
		out, err := runCLI(ctx, t, env, "migrate")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		last := lines[len(lines)-1]
		if err == nil || !strings.HasPrefix(last, "heddle: ") || strings.Contains(out, "s3cretpw") {
			t.Errorf("%s: %v\n%s", name, err, out)
		}
		for _, l := range lines[:len(lines)-1] {
			if !strings.HasPrefix(l, "{") { // structured log lines before the error are fine
				t.Errorf("%s: extra output line %q", name, l)
			}
		}
		t.Logf("%s: %s", name, last)
	}
}

package app

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestHelpEverywhere: every command and subcommand answers -h and --help
// on stdout with a usage, returns nil or flag.ErrHelp (exit 0), and touches
// nothing: the data directory is never created.
func TestHelpEverywhere(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "data")
	e := func(out *bytes.Buffer) cliEnv {
		return cliEnv{getenv: env(map[string]string{"HEDDLE_DATA_DIR": dataDir, "HEDDLE_ADDR": "127.0.0.1:1"}), stdout: out, stderr: out}
	}
	var names [][]string
	for _, c := range commands {
		names = append(names, []string{c.name})
	}
	names = append(names, []string{"keys", "create"}, []string{"vault", "init"}, []string{"vault", "rotate"},
		[]string{"bundle", "train"}, []string{"bundle", "eval"}, []string{"models", "pull"},
		[]string{"catalog", "import"}, []string{"connect", "claude-code"}, []string{"help", "serve"})
	for _, cmd := range names {
		for _, h := range []string{"-h", "--help"} {
			var out bytes.Buffer
			err := run(context.Background(), append(append([]string{}, cmd...), h), e(&out))
			if (err != nil && !errors.Is(err, flag.ErrHelp)) || !strings.Contains(out.String(), "Usage") {
				t.Errorf("%v %s: err %v, output %q", cmd, h, err, out.String())
			}
		}
	}
	if _, err := os.Stat(dataDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a help run created the data dir: %v", err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"serve", "extra"}, e(&out)); err == nil || !strings.Contains(err.Error(), "takes no arguments") {
		t.Errorf("serve extra: %v", err)
	}
	if err := run(context.Background(), []string{"frob"}, e(&out)); err == nil || !strings.Contains(out.String(), "Commands:") {
		t.Errorf("unknown command: %v", err)
	}
}

func TestFormatVersion(t *testing.T) {
	for name, tt := range map[string]struct {
		info *debug.BuildInfo
		want string
	}{
		"tagged and clean": {&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "false"}}},
			"heddle v1.2.3 (commit abc123, committed 2026-12-01T10:00:00Z, go1.26.8)"},
		"dirty tree": {&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}},
			"heddle (devel) (commit abc123+dirty, go1.26.8)"},
		"no vcs": {&debug.BuildInfo{GoVersion: "go1.26.8"}, "heddle (devel) (commit unknown (built without VCS information), go1.26.8)"},
	} {
		if got := formatVersion(tt.info); got != tt.want {
			t.Errorf("%s: %q, want %q", name, got, tt.want)
		}
	}
}

func TestUnknownVariables(t *testing.T) {
	got := unknownVariables([]string{
		"HEDDLE_ADDR=:1", "HEDDLE_LOG_LEVL=debug", "HEDDLE_DATABASE_URL_FILE=/x", "HEDDLE_CACHE_TLL=5m",
		"HEDDLE_E2E_BIN=/b", "HEDDLE_WHATEVER=1", "PATH=/bin", "HEDDLE_SESION_SECRET=x",
	})
	want := []unknownVariable{
		{"HEDDLE_CACHE_TLL", "HEDDLE_CACHE_TTL"}, {"HEDDLE_LOG_LEVL", "HEDDLE_LOG_LEVEL"},
		{"HEDDLE_SESION_SECRET", "HEDDLE_SESSION_SECRET"}, {"HEDDLE_WHATEVER", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"", "abc", 3}, {"kitten", "sitting", 3}, {"HEDDLE_ADDR", "HEDDLE_ADDR", 0}, {"ab", "ba", 2}} {
		if d := editDistance(tt.a, tt.b); d != tt.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, d, tt.d)
		}
	}
}

func TestProgressLines(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out)
	for i := 1; i <= 25; i++ {
		p.update("embed", i, 25)
	}
	for i := 1; i <= 2; i++ {
		p.update("k-means", i, 2)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 13 || lines[0] != "embed: 1/25 (4%)" || lines[10] != "embed: 25/25 (100%)" || lines[12] != "k-means: 2/2 (100%)" {
		t.Errorf("progress lines %q", lines)
	}
	if strings.Contains(out.String(), "\r") {
		t.Error("a non-terminal got a redrawn bar")
	}
}

func TestOneLine(t *testing.T) {
	err := errors.New("reach postgres: failed to connect:\n\t127.0.0.1:1: refused\n\t127.0.0.1:1: refused\nsecond")
	if got := oneLine(err); got != "reach postgres: failed to connect: 127.0.0.1:1: refused; second" {
		t.Errorf("oneLine = %q", got)
	}
}

func TestStoreURLValidation(t *testing.T) {
	for name, tt := range map[string]struct {
		vars map[string]string
		want string
	}{
		"postgres ok":      {map[string]string{"HEDDLE_DATABASE_URL": "postgres://u:p@h:5432/d?sslmode=disable"}, ""},
		"postgres space":   {map[string]string{"HEDDLE_DATABASE_URL": "postgres://u:secret@a b/d"}, "HEDDLE_DATABASE_URL: not a URL"},
		"postgres dsn":     {map[string]string{"HEDDLE_DATABASE_URL": "host=x password=secret"}, "HEDDLE_DATABASE_URL: not a URL"},
		"clickhouse http":  {map[string]string{"HEDDLE_CLICKHOUSE_URL": "http://u:secret@h:8123"}, `HEDDLE_CLICKHOUSE_URL: scheme "http"`},
		"clickhouse ok":    {map[string]string{"HEDDLE_CLICKHOUSE_URL": "clickhouse://h:9000/db"}, ""},
		"redis no host":    {map[string]string{"HEDDLE_REDIS_URL": "redis:///0"}, "HEDDLE_REDIS_URL: the URL has no host"},
		"redis unix":       {map[string]string{"HEDDLE_REDIS_URL": "unix:///run/redis.sock"}, ""},
		"redis bare host":  {map[string]string{"HEDDLE_REDIS_URL": "secret@h:6379"}, "HEDDLE_REDIS_URL: not a URL"},
		"postgres no host": {map[string]string{"HEDDLE_DATABASE_URL": "postgres:///d"}, "HEDDLE_DATABASE_URL: the URL has no host"},
	} {
		_, err := LoadConfig(env(tt.vars))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: %v, want %q", name, err, tt.want)
		case err != nil && strings.Contains(err.Error(), "secret"):
			t.Errorf("%s: the error shows the URL: %v", name, err)
		}
	}
}

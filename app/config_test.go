package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadConfigDefaults(t *testing.T) {
	c, err := LoadConfig(env(nil))
	if err != nil {
		t.Fatalf("LoadConfig: %v", err)
	}
	if c.Env != "development" || c.Addr != ":8080" || c.DataDir != "./data" || c.MaxBodyBytes != 20<<20 ||
		c.ShutdownTimeout != 30*time.Second || c.MaxAttempts != 3 || c.CookieSecure || c.SpillDir != filepath.Join("data", "spill") {
		t.Fatalf("defaults = %+v", c)
	}
}

func TestLoadConfigFileSecrets(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "secret")
	if err := os.WriteFile(p, []byte("postgres://x@h/db\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(env(map[string]string{"HEDDLE_DATABASE_URL_FILE": p}))
	if err != nil {
		t.Fatal(err)
	}
	if c.DatabaseURL != "postgres://x@h/db" {
		t.Fatalf("DatabaseURL = %q", c.DatabaseURL)
	}
}

func TestLoadConfigJoinsEveryError(t *testing.T) {
	_, err := LoadConfig(env(map[string]string{
		"HEDDLE_ENV":                     "production",
		"HEDDLE_MAX_BODY_BYTES":          "lots",
		"HEDDLE_SHUTDOWN_TIMEOUT":        "-1s",
		"HEDDLE_LOG_LEVEL":               "loud",
		"HEDDLE_ALLOW_PRIVATE_UPSTREAMS": "true",
		"HEDDLE_REDIS_URL":               "redis://a",
		"HEDDLE_REDIS_URL_FILE":          "/nope",
	}))
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{
		"HEDDLE_MAX_BODY_BYTES", "HEDDLE_SHUTDOWN_TIMEOUT", "HEDDLE_LOG_LEVEL",
		"HEDDLE_MASTER_KEYSET or HEDDLE_MASTER_KEYSET_FILE is required in production",
		"HEDDLE_SESSION_SECRET", "HEDDLE_ALLOW_PRIVATE_UPSTREAMS", "HEDDLE_REDIS_URL and HEDDLE_REDIS_URL_FILE",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q:\n%v", want, err)
		}
	}
}

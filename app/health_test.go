package app

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/tenancy"
)

func TestHealthCommand(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			t.Errorf("path %s", r.URL.Path)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"status":"degraded"}`))
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	var out bytes.Buffer
	if err := run(context.Background(), []string{"health"}, cliEnv{getenv: env(map[string]string{"HEDDLE_ADDR": port}), stdout: &out, stderr: &out}); err != nil {
		t.Fatalf("health on a 200: %v", err)
	}
	if !strings.Contains(out.String(), "degraded") {
		t.Errorf("output %q", out.String())
	}
	status = http.StatusServiceUnavailable
	if err := run(context.Background(), []string{"health", srv.URL + "/readyz"}, cliEnv{getenv: env(nil), stdout: &out, stderr: &out}); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("health on a 503: %v", err)
	}
}

func TestVaultInitWritesAKeysetOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys", "master-keyset.json")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"vault", "init", path}, cliEnv{getenv: env(nil), stdout: &out, stderr: &out}); err != nil {
		t.Fatal(err)
	}
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tenancy.ReadMasterKeysetFile(path); err != nil {
		t.Fatalf("written keyset does not parse: %v", err)
	}
	if err := run(context.Background(), []string{"vault", "init", path}, cliEnv{getenv: env(nil), stdout: &out, stderr: &out}); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(path)
	if !bytes.Equal(first, again) || !strings.Contains(out.String(), "left as is") {
		t.Fatalf("second init changed the keyset or said %q", out.String())
	}
}

package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/tenancy"
)

const testKey = "rk_0123456789abcdefghijABCDEFGHIJ0123456789"

func connectEnv(home string, out *bytes.Buffer) cliEnv {
	return cliEnv{getenv: env(map[string]string{"HOME": home, "HEDDLE_ADDR": ":9090"}), stdout: out, stderr: out}
}

// TestConnectWritesClaudeSettings: --write merges the two variables into an
// existing settings.json, keeping its other settings, with mode 0600.
func TestConnectWritesClaudeSettings(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"theme":"dark","env":{"KEEP":"1","ANTHROPIC_BASE_URL":"http://old"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := connectCommand(context.Background(), []string{"claude-code", "--key", testKey, "--write"}, connectEnv(home, &out)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), testKey) || !strings.Contains(out.String(), "rk_01234567...") {
		t.Errorf("output %q: want the key's prefix only", out.String())
	}
	var got struct {
		Theme string            `json:"theme"`
		Env   map[string]string `json:"env"`
	}
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Theme != "dark" || got.Env["KEEP"] != "1" || got.Env["ANTHROPIC_BASE_URL"] != "http://localhost:9090" || got.Env["ANTHROPIC_AUTH_TOKEN"] != testKey {
		t.Errorf("settings %s", data)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
}

// TestConnectWritesCodexConfig: --write writes config.toml, keeping a
// different existing one as config.toml.bak; the printed text is the file.
func TestConnectWritesCodexConfig(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".codex", "config.toml")
	_ = os.MkdirAll(filepath.Dir(path), 0o700)
	_ = os.WriteFile(path, []byte("model = \"mine\"\n"), 0o600)
	args := []string{"codex", "--key", testKey, "--url", "https://gw.example.com/", "--model", "gpt-5"}
	var printed bytes.Buffer
	if err := connectCommand(context.Background(), args, connectEnv(home, &printed)); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := connectCommand(context.Background(), append(args, "--write"), connectEnv(home, &out)); err != nil {
		t.Fatal(err)
	}
	want := "model = \"gpt-5\"\nmodel_provider = \"heddle\"\n\n[model_providers.heddle]\nname = \"Heddle\"\n" +
		"base_url = \"https://gw.example.com/v1\"\nwire_api = \"responses\"\nexperimental_bearer_token = \"" + testKey + "\"\n"
	if data, _ := os.ReadFile(path); string(data) != want {
		t.Errorf("config.toml:\n%s\nwant:\n%s", data, want)
	}
	if bak, _ := os.ReadFile(path + ".bak"); string(bak) != "model = \"mine\"\n" {
		t.Errorf("backup %q", bak)
	}
	if !strings.HasSuffix(printed.String(), want) {
		t.Errorf("printed %q, want it to end with the file", printed.String())
	}
}

func TestConnectRefuses(t *testing.T) {
	for name, args := range map[string][]string{
		"no client":     {},
		"unknown":       {"vim", "--key", testKey},
		"no key":        {"codex"},
		"both":          {"codex", "--key", testKey, "--org", "default"},
		"bad key":       {"codex", "--key", "sk-ant-xyz"},
		"bad url":       {"codex", "--key", testKey, "--url", "ftp://x"},
		"cursor write":  {"cursor", "--key", testKey, "--write"},
		"stray operand": {"sdk", "--key", testKey, "extra"},
	} {
		var out bytes.Buffer
		if err := connectCommand(context.Background(), args, connectEnv(t.TempDir(), &out)); err == nil {
			t.Errorf("%s: no error; output %q", name, out.String())
		}
	}
}

// TestCatalogImportCommand: the import prints the differences and writes an
// override that keeps an existing override's other models.
func TestCatalogImportCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "override.json")
	old := `{"version":"mine","providers":[],"models":[{"id":"in-house","family":"openai","tier":1,"context_window":1000,"max_output":100,` +
		`"capabilities":{},"price":{"input":1,"output":1},"bindings":[{"provider":"openai","upstream":"in-house"}]}]}`
	if err := os.WriteFile(out, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	e := cliEnv{getenv: env(nil), stdout: &stdout, stderr: &stdout}
	if err := catalogCommand([]string{"import", "../catalog/testdata/litellm_prices.json", "--out", out}, e); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 prices differ from the embedded catalog", "claude-sonnet-4-5", "input 3 -> 2.5, output 15 -> 12.5",
		"gemini-2.5-flash", "output 2.5 -> 2.4", "price version 2026-12-02+litellm-"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	data, _ := os.ReadFile(out)
	for _, want := range []string{`"in-house"`, `"claude-sonnet-4-5"`, `"gemini-2.5-flash"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("override lacks %s:\n%s", want, data)
		}
	}
	stdout.Reset()
	if err := catalogCommand([]string{"import", "../catalog/testdata/litellm_prices.json", "--dry-run"}, e); err != nil || !strings.Contains(stdout.String(), "2 prices differ") {
		t.Errorf("dry run: %v %s", err, stdout.String())
	}
	if err := catalogCommand([]string{"import", "../catalog/testdata/litellm_prices.json"}, e); err == nil {
		t.Error("no --out and no HEDDLE_CATALOG_FILE: no error")
	}
}

// TestNoKeyForThePlatformOrg: neither `keys create` nor `connect --org`
// issues a key of the platform organisation (it would spend platform
// credentials unbilled), however it is named.
func TestNoKeyForThePlatformOrg(t *testing.T) {
	ctx := context.Background()
	vars := map[string]string{"HEDDLE_DATA_DIR": t.TempDir(), "HOME": t.TempDir()}
	getenv := func(k string) string { return vars[k] }
	for _, ref := range []string{credits.PlatformOrgID, "heddle-platform", "Heddle-Platform"} {
		var out bytes.Buffer
		if err := keysCommand(ctx, []string{"create", "--org", ref}, getenv, &out, &out); err == nil {
			t.Errorf("keys create --org %s: no error; output %q", ref, out.String())
		}
		out.Reset()
		if err := connectCommand(ctx, []string{"sdk", "--org", ref}, cliEnv{getenv: getenv, stdout: &out, stderr: &out}); err == nil {
			t.Errorf("connect --org %s: no error; output %q", ref, out.String())
		}
	}
	c, err := openTenancy(ctx, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer c.closeStores()
	if keys, err := c.store.OrgKeys(ctx, credits.PlatformOrgID); err != nil || len(keys) != 0 {
		t.Errorf("platform organisation keys %d, %v; want none", len(keys), err)
	}
	// A key issued before these refusals does not authenticate at the gateway.
	_, old, err := c.keys.CreateForOrg(ctx, credits.PlatformOrgID, tenancy.KeyInput{Name: "old",
		Scopes: []tenancy.Scope{tenancy.ScopeInference}})
	if err != nil {
		t.Fatal(err)
	}
	if caller, err := (authAdapter{a: c.auth, plans: c.credits, budgets: c.orgBudgets}).Authenticate(ctx, old); !errors.Is(err, gateway.ErrUnauthorized) {
		t.Errorf("a platform organisation key authenticated: %+v, %v", caller, err)
	}
}

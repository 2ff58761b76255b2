package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/heddle-gw/heddle/tenancy"
)

const connectHelp = `Usage: heddle connect CLIENT (--key rk_... | --org ORG) [--url URL] [--model M] [--write]

Prints the configuration that points CLIENT at this server with a key; with
--write, writes it where the client reads it:

  claude-code  ANTHROPIC_BASE_URL and ANTHROPIC_AUTH_TOKEN; --write merges them into the
               "env" of ~/.claude/settings.json ($CLAUDE_CONFIG_DIR if set)
  codex        a config.toml selecting a "heddle" model provider (Codex ignores
               OPENAI_BASE_URL); --write writes ~/.codex/config.toml ($CODEX_HOME if set),
               keeping an existing one as config.toml.bak
  cursor       the two settings to enter in Cursor (Settings > Models); no --write
  sdk          environment for the OpenAI, Anthropic and Gemini SDKs; --write writes ./heddle.env

--org issues a new key for that organisation (id or slug) in the app database.
--url defaults to http://localhost:<port of HEDDLE_ADDR>. Without --model the
client's own default model is used: Heddle serves current Claude and GPT model
names it has no catalog entry for by pass-through (README, "Clients").

Flags:
  --key KEY     an rk_ key to use
  --org ORG     issue a key for this organisation instead
  --url URL     the server's base URL as clients reach it
  --model M     also set the client's model
  --write       write the configuration instead of printing it
`

// connection is what a client's configuration is made of.
type connection struct {
	base   string // server base URL, no trailing slash, no /v1
	key    string
	prefix string // the key's display prefix, all that is ever printed of it
	model  string
}

// clientConfig is one client's configuration: the text printed, and the
// file --write writes (path "" when the client has no file Heddle can write).
type clientConfig struct {
	text  string
	path  string
	write func(path string) error
}

// connectCommand implements `heddle connect`.
func connectCommand(ctx context.Context, args []string, e cliEnv) error {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, connectHelp)
		return errors.New("connect: name a client: claude-code, codex, cursor or sdk")
	}
	client := args[0]
	fs := subcommand("connect "+client, "(--key rk_... | --org ORG) [--url URL] [--model M] [--write]", e.stdout)
	key := fs.String("key", "", "an rk_ key to use")
	org := fs.String("org", "", "issue a new key for this organisation (id or slug)")
	base := fs.String("url", "", "the server's base URL as clients reach it (default http://localhost:<port of HEDDLE_ADDR>)")
	model := fs.String("model", "", "also set the client's model (default: the client's own default)")
	write := fs.Bool("write", false, "write the configuration where the client reads it instead of printing it")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("connect: unexpected argument %q", fs.Arg(0))
	}
	build, ok := clientBuilders[client]
	if !ok {
		return fmt.Errorf("connect: unknown client %q (want claude-code, codex, cursor or sdk)", client)
	}
	cfg, err := LoadConfig(e.getenv)
	if err != nil {
		return err
	}
	conn := connection{key: *key, model: *model, prefix: "rk_..."}
	if conn.base, err = serverURL(*base, cfg.Addr); err != nil {
		return err
	}
	switch {
	case *key != "" && *org != "":
		return errors.New("connect: give --key or --org, not both")
	case *key != "":
		_, prefix, err := tenancy.ParseKey(*key)
		if err != nil {
			return errors.New("connect: --key is not a Heddle key (rk_ and 40 letters or digits)")
		}
		conn.prefix = prefix
	case *org != "":
		if conn.key, err = issueConnectKey(ctx, e, *org, client); err != nil {
			return err
		}
		if _, conn.prefix, err = tenancy.ParseKey(conn.key); err != nil {
			return err
		}
	default:
		return errors.New("connect: give --key rk_... (an existing key) or --org ORG (to issue one)")
	}
	cc, err := build(conn, e.getenv)
	if err != nil {
		return err
	}
	if !*write {
		fmt.Fprint(e.stdout, cc.text)
		return nil
	}
	if cc.path == "" {
		return fmt.Errorf("connect: %s keeps its settings in its own app; enter them as `heddle connect %s` prints", client, client)
	}
	if err := cc.write(cc.path); err != nil {
		return fmt.Errorf("connect: write %s: %w", cc.path, err)
	}
	fmt.Fprintf(e.stdout, "wrote %s for %s (server %s, key %s...)\n", cc.path, client, conn.base, conn.prefix)
	return nil
}

// issueConnectKey creates a key named after the client for org.
func issueConnectKey(ctx context.Context, e cliEnv, org, client string) (string, error) {
	c, err := openTenancy(ctx, e.getenv, e.stderr)
	if err != nil {
		return "", err
	}
	defer c.closeStores()
	_, plaintext, err := c.createOrgKey(ctx, org, tenancy.KeyInput{
		Name: "connect " + client, Policy: tenancy.PolicyExplicit,
		Scopes: []tenancy.Scope{tenancy.ScopeInference, tenancy.ScopeRoute},
	})
	if err != nil {
		return "", fmt.Errorf("connect: issue a key for %q: %w", org, err)
	}
	return plaintext, nil
}

// serverURL is the server's base URL: the --url given (http or https, no
// query; a trailing / or /v1 is dropped), else localhost on HEDDLE_ADDR's port.
func serverURL(given, addr string) (string, error) {
	if given == "" {
		return "http://" + displayAddr(addr), nil
	}
	u, err := url.Parse(given)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("connect: --url %q is not an http(s) URL like http://heddle.example.com:8080", given)
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1")
	return strings.TrimSuffix(u.String(), "/"), nil
}

// clientBuilders make each client's configuration.
var clientBuilders = map[string]func(connection, func(string) string) (clientConfig, error){
	"claude-code": claudeCodeConfig,
	"codex":       codexConfig,
	"cursor":      cursorConfig,
	"sdk":         sdkConfig,
}

func homeDir(getenv func(string) string) (string, error) {
	if h := getenv("HOME"); h != "" {
		return h, nil
	}
	return os.UserHomeDir()
}

// claudeCodeEnv is the environment Claude Code needs: its Anthropic base URL
// (without /v1) and the key as a bearer token.
func claudeCodeEnv(c connection) [][2]string {
	env := [][2]string{{"ANTHROPIC_BASE_URL", c.base}, {"ANTHROPIC_AUTH_TOKEN", c.key}}
	if c.model != "" {
		env = append(env, [2]string{"ANTHROPIC_MODEL", c.model})
	}
	return env
}

func claudeCodeConfig(c connection, getenv func(string) string) (clientConfig, error) {
	dir := getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		home, err := homeDir(getenv)
		if err != nil {
			return clientConfig{}, err
		}
		dir = filepath.Join(home, ".claude")
	}
	var b strings.Builder
	b.WriteString("# Claude Code: run it with this environment (or `heddle connect claude-code --write` keeps it in\n# " +
		filepath.Join(dir, "settings.json") + ").\n")
	for _, kv := range claudeCodeEnv(c) {
		fmt.Fprintf(&b, "export %s=%s\n", kv[0], shellQuote(kv[1]))
	}
	return clientConfig{text: b.String(), path: filepath.Join(dir, "settings.json"), write: func(path string) error {
		return mergeClaudeSettings(path, claudeCodeEnv(c))
	}}, nil
}

// mergeClaudeSettings sets env's variables in the "env" object of Claude
// Code's settings.json, keeping every other setting, with mode 0600 (it holds
// the key).
func mergeClaudeSettings(path string, env [][2]string) error {
	settings := map[string]any{}
	if data, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(data, &settings); err != nil {
			return fmt.Errorf("existing settings are not a JSON object: %w", err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	envs, _ := settings["env"].(map[string]any)
	if envs == nil {
		envs = map[string]any{}
	}
	for _, kv := range env {
		envs[kv[0]] = kv[1]
	}
	settings["env"] = envs
	data, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return err
	}
	return writePrivate(path, append(data, '\n'))
}

// codexTOML is Codex's config.toml selecting Heddle as its model provider
// over the Responses API, with the key as the provider's bearer token.
func codexTOML(c connection) string {
	var b strings.Builder
	if c.model != "" {
		fmt.Fprintf(&b, "model = %s\n", strconv.Quote(c.model))
	}
	b.WriteString("model_provider = \"heddle\"\n\n[model_providers.heddle]\nname = \"Heddle\"\n")
	fmt.Fprintf(&b, "base_url = %s\n", strconv.Quote(c.base+"/v1"))
	b.WriteString("wire_api = \"responses\"\n")
	fmt.Fprintf(&b, "experimental_bearer_token = %s\n", strconv.Quote(c.key))
	return b.String()
}

func codexConfig(c connection, getenv func(string) string) (clientConfig, error) {
	dir := getenv("CODEX_HOME")
	if dir == "" {
		home, err := homeDir(getenv)
		if err != nil {
			return clientConfig{}, err
		}
		dir = filepath.Join(home, ".codex")
	}
	path := filepath.Join(dir, "config.toml")
	text := "# Codex: " + path + " (Codex ignores OPENAI_BASE_URL; `heddle connect codex --write` writes this file)\n" + codexTOML(c)
	return clientConfig{text: text, path: path, write: func(path string) error {
		return replaceKeepingBackup(path, []byte(codexTOML(c)))
	}}, nil
}

// replaceKeepingBackup writes data to path (mode 0600), first renaming a
// different existing file to path.bak.
func replaceKeepingBackup(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil {
		if bytes.Equal(old, data) {
			return nil
		}
		if err := os.Rename(path, path+".bak"); err != nil {
			return err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return writePrivate(path, data)
}

func cursorConfig(c connection, _ func(string) string) (clientConfig, error) {
	text := "# Cursor: Settings > Models > API Keys\n" +
		"OpenAI API Key:           " + c.key + "\n" +
		"Override OpenAI Base URL: " + c.base + "/v1\n"
	if c.model != "" {
		text += "Add model:                " + c.model + "\n"
	}
	return clientConfig{text: text}, nil
}

// sdkEnv is what the official SDKs read: OpenAI's base URL ends in /v1,
// Anthropic's and Gemini's do not.
func sdkEnv(c connection) [][2]string {
	return [][2]string{
		{"OPENAI_BASE_URL", c.base + "/v1"}, {"OPENAI_API_KEY", c.key},
		{"ANTHROPIC_BASE_URL", c.base}, {"ANTHROPIC_API_KEY", c.key},
		{"GOOGLE_GEMINI_BASE_URL", c.base}, {"GEMINI_API_KEY", c.key},
	}
}

func sdkConfig(c connection, _ func(string) string) (clientConfig, error) {
	var b strings.Builder
	b.WriteString("# Official SDKs (openai, @anthropic-ai/sdk, @google/genai and their Python and Go twins)\n")
	for _, kv := range sdkEnv(c) {
		fmt.Fprintf(&b, "export %s=%s\n", kv[0], shellQuote(kv[1]))
	}
	file := ""
	for _, kv := range sdkEnv(c) {
		file += kv[0] + "=" + kv[1] + "\n"
	}
	return clientConfig{text: b.String(), path: "heddle.env", write: func(path string) error {
		return writePrivate(path, []byte(file))
	}}, nil
}

// writePrivate writes data to path with mode 0600 (its directory 0700 when
// created): client configurations hold the key.
func writePrivate(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

package app

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// composeFile is the part of compose.yaml the checks read.
type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Build       any               `yaml:"build"`
		Environment map[string]string `yaml:"environment"`
		Secrets     []string          `yaml:"secrets"`
		Volumes     []string          `yaml:"volumes"`
		Healthcheck *struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
	} `yaml:"services"`
	Secrets map[string]struct {
		File string `yaml:"file"`
	} `yaml:"secrets"`
	Volumes map[string]any `yaml:"volumes"`
}

// repoFile reads a file at the module root.
func repoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func loadCompose(t *testing.T) composeFile {
	t.Helper()
	var c composeFile
	if err := yaml.Unmarshal([]byte(repoFile(t, "compose.yaml")), &c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	if len(c.Services) == 0 {
		t.Fatal("compose.yaml has no services")
	}
	return c
}

// configNames are the variables LoadConfig reads.
func configNames(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	if _, err := LoadConfig(func(k string) string { names[k] = true; return "" }); err != nil {
		t.Fatal(err)
	}
	return names
}

// TestComposeHeddleServices: every HEDDLE_* variable compose.yaml sets is
// one the config loader reads and the README documents; the _FILE secrets
// are mounted; and each replica's environment loads as a valid production
// configuration with the hosted stores.
func TestComposeHeddleServices(t *testing.T) {
	c := loadCompose(t)
	known := configNames(t)
	readme := repoFile(t, "README.md")
	replicas := 0
	for name, svc := range c.Services {
		if svc.Environment["HEDDLE_ENV"] == "" {
			for k := range svc.Environment {
				if strings.HasPrefix(k, "HEDDLE_") {
					t.Errorf("%s sets %s but is not a Heddle service (no HEDDLE_ENV)", name, k)
				}
			}
			continue
		}
		replicas++
		dir := t.TempDir()
		env := map[string]string{}
		for k, v := range svc.Environment {
			if !known[k] {
				t.Errorf("%s: %s is not a variable the config loader reads", name, k)
			}
			if !strings.Contains(readme, "`"+strings.TrimSuffix(k, "_FILE")) {
				t.Errorf("%s: %s is not in the README's configuration table", name, k)
			}
			env[k] = v
			secret, ok := strings.CutPrefix(v, "/run/secrets/")
			if !ok {
				continue
			}
			if !slices.Contains(svc.Secrets, secret) || c.Secrets[secret].File == "" {
				t.Errorf("%s: %s reads secret %q, which the service does not mount from a file", name, k, secret)
			}
			// Plausible contents, so that the loader's checks run.
			content := strings.Repeat("s", 48)
			if u, isURL := plausibleURLs[k]; isURL {
				content = u
			}
			p := filepath.Join(dir, secret)
			if err := os.WriteFile(p, []byte(content+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			env[k] = p
		}
		cfg, err := LoadConfig(env2(env))
		if err != nil {
			t.Errorf("%s: its environment does not load: %v", name, err)
			continue
		}
		if !cfg.Production() || cfg.DatabaseURL == "" || cfg.ClickHouseURL == "" || cfg.RedisURL == "" ||
			cfg.MasterKeysetFile == "" || cfg.SessionSecret == "" {
			t.Errorf("%s: want production with Postgres, ClickHouse, Redis, a keyset file and a session secret; got %+v", name, cfg)
		}
		if svc.Build == nil && svc.Image == "" {
			t.Errorf("%s: neither build nor image", name)
		}
	}
	if replicas < 2 {
		t.Errorf("compose.yaml runs %d Heddle replicas, want 2", replicas)
	}
	nginx := repoFile(t, "deploy/nginx/nginx.conf")
	for name, svc := range c.Services {
		if svc.Environment["HEDDLE_ENV"] != "" && !strings.Contains(nginx, "server "+name+":8080") {
			t.Errorf("the balancer does not forward to %s", name)
		}
	}
}

// plausibleURLs are secret file contents for the store URL variables.
var plausibleURLs = map[string]string{
	"HEDDLE_DATABASE_URL_FILE":   "postgres://heddle:pw@postgres:5432/heddle?sslmode=disable",
	"HEDDLE_CLICKHOUSE_URL_FILE": "clickhouse://heddle:pw@clickhouse:9000/heddle",
	"HEDDLE_REDIS_URL_FILE":      "redis://redis:6379/0",
}

func env2(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestComposeHealthchecksAndVolumes: every service has a health check, and
// every named volume is declared.
func TestComposeHealthchecksAndVolumes(t *testing.T) {
	c := loadCompose(t)
	for name, svc := range c.Services {
		if svc.Healthcheck == nil || len(svc.Healthcheck.Test) < 2 {
			t.Errorf("%s: no healthcheck", name)
		}
		for _, v := range svc.Volumes {
			src, _, _ := strings.Cut(v, ":")
			if strings.HasPrefix(src, ".") || strings.HasPrefix(src, "/") {
				continue // a bind mount of a repository file
			}
			if _, ok := c.Volumes[src]; !ok {
				t.Errorf("%s: volume %q is not declared under volumes", name, src)
			}
		}
	}
}

// TestDockerfileMatchesModule: the image builds the module's main package
// statically with the Go version go.mod names, runs the binary it copied as
// a non-root user, and the compose health check calls that binary's health
// command.
func TestDockerfileMatchesModule(t *testing.T) {
	df := repoFile(t, "Dockerfile")
	gomod := repoFile(t, "go.mod")
	goVersion := regexp.MustCompile(`(?m)^go (\S+)`).FindStringSubmatch(gomod)
	from := regexp.MustCompile(`(?m)^FROM golang:(\S+?)(-\S+)? AS build`).FindStringSubmatch(df)
	if goVersion == nil || from == nil || from[1] != goVersion[1] {
		t.Errorf("builder image golang:%v does not match go.mod's go %v", from, goVersion)
	}
	build := regexp.MustCompile(`RUN CGO_ENABLED=0 GOOS=linux go build [^\n]*-o (\S+) (\S+)`).FindStringSubmatch(df)
	if build == nil {
		t.Fatal("no static go build line (CGO_ENABLED=0 go build -o OUT PKG)")
	}
	out, pkg := build[1], build[2]
	if pkg != "." || !strings.Contains(repoFile(t, "main.go"), "package main") || !strings.HasPrefix(gomod, "module github.com/heddle-gw/heddle\n") {
		t.Errorf("go build of %q: want the module root, whose main.go is package main", pkg)
	}
	copyBin := regexp.MustCompile(`(?m)^COPY --from=build ` + regexp.QuoteMeta(out) + ` (\S+)$`).FindStringSubmatch(df)
	entry := regexp.MustCompile(`(?m)^ENTRYPOINT \["([^"]+)"\]`).FindStringSubmatch(df)
	if copyBin == nil || entry == nil || copyBin[1] != entry[1] {
		t.Errorf("ENTRYPOINT %v does not run the copied binary %v", entry, copyBin)
	}
	user := regexp.MustCompile(`(?m)^USER (\S+)`).FindStringSubmatch(df)
	if user == nil || user[1] == "root" || strings.HasPrefix(user[1], "0") {
		t.Errorf("USER %v: want a non-root user", user)
	}
	if !regexp.MustCompile(`(?m)^FROM gcr.io/distroless/static`).MatchString(df) {
		t.Error("runtime image is not distroless/static")
	}
	for name, svc := range loadCompose(t).Services {
		if svc.Environment["HEDDLE_ENV"] == "" {
			continue
		}
		if test := svc.Healthcheck.Test; entry == nil || len(test) < 3 || test[1] != entry[1] || test[2] != "health" {
			t.Errorf("%s: healthcheck %v does not run %v health", name, test, entry)
		}
	}
	if !strings.Contains(usage(), "health") {
		t.Error("the CLI has no health command")
	}
}

// TestREADMEListsEveryVariable: each variable the loader reads is in the
// README's configuration table.
func TestREADMEListsEveryVariable(t *testing.T) {
	readme := repoFile(t, "README.md")
	for name := range configNames(t) {
		if !strings.Contains(readme, "`"+strings.TrimSuffix(name, "_FILE")) {
			t.Errorf("%s is not in the README", name)
		}
	}
}

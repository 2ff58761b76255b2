package dispatch_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const (
	module         = "github.com/heddle-gw/heddle"
	providerPrefix = module + "/dispatch/provider"
)

// providerImports parses every Go file under root (the module) and returns
// "file: import" for each import of a dispatch/provider package from a
// package outside dispatch/... and app/.... It also returns how many files
// it parsed.
func providerImports(t *testing.T, root string) (violations []string, files int) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, path)
		dir := filepath.ToSlash(filepath.Dir(rel))
		if allowed(dir) {
			return nil
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == providerPrefix || strings.HasPrefix(p, providerPrefix+"/") {
				violations = append(violations, filepath.ToSlash(rel)+": "+p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", root, err)
	}
	return violations, files
}

// allowed reports whether the package in dir may import provider packages.
func allowed(dir string) bool {
	for _, p := range []string{"dispatch", "app"} {
		if dir == p || strings.HasPrefix(dir, p+"/") {
			return true
		}
	}
	return false
}

// TestProviderBoundary fails when any package other than dispatch/... and app
// imports a dispatch/provider package: only dispatch calls providers.
func TestProviderBoundary(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	violations, files := providerImports(t, root)
	if files < 20 {
		t.Fatalf("parsed only %d files: the walk is not seeing the module", files)
	}
	for _, v := range violations {
		t.Errorf("only dispatch and app may import provider packages: %s", v)
	}
}

// TestProviderBoundaryDetects proves the check fails on a violation and
// passes on the allowed importers.
func TestProviderBoundaryDetects(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("gateway/bad.go", "package gateway\nimport _ \""+providerPrefix+"/openai\"\n")
	write("gateway/httpapi/bad_test.go", "package httpapi\nimport (\n\t\"fmt\"\n\tx \""+providerPrefix+"/anthropic\"\n)\n")
	write("web/fine.go", "package web\nimport _ \""+module+"/dispatch\"\n")
	write("app/wire.go", "package app\nimport _ \""+providerPrefix+"/openai\"\n")
	write("dispatch/x_test.go", "package dispatch\nimport _ \""+providerPrefix+"/gemini\"\n")
	write("testdata/ignored.go", "package x\nimport _ \""+providerPrefix+"/openai\"\n")
	violations, files := providerImports(t, root)
	want := []string{"gateway/bad.go: " + providerPrefix + "/openai", "gateway/httpapi/bad_test.go: " + providerPrefix + "/anthropic"}
	if files != 5 || len(violations) != 2 || violations[0] != want[0] || violations[1] != want[1] {
		t.Fatalf("files %d violations %v, want %v", files, violations, want)
	}
}

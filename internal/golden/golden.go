// Package golden is the golden-file helper of the codec tests: compare output
// with a file under testdata, or rewrite it when the test binary runs with
// -update. It is imported only from tests.
package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// Updating reports whether the test binary runs with -update.
func Updating() bool { return *update }

// Check compares got with the file at path, or rewrites the file with -update.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden %s: %v (run go test -update to create it)", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// Glob lists the fixtures matching pattern, failing when there are none.
func Glob(t testing.TB, pattern string) []string {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures match %s: %v", pattern, err)
	}
	return paths
}

// Beside names the golden file of a fixture: its path with the extension
// replaced by suffix.
func Beside(fixture, suffix string) string {
	return strings.TrimSuffix(fixture, filepath.Ext(fixture)) + suffix
}

// Read returns a file's bytes, failing the test on error.
func Read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Indent renders a JSON document indented by two spaces, with a final newline.
func Indent(t testing.TB, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return append(out.Bytes(), '\n')
}

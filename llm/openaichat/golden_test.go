package openaichat

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/llm"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with the file at path, or rewrites it under -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// testCodec returns a codec whose generated ids count up and whose clock
// is stopped.
func testCodec() *Codec {
	n := 0
	return &Codec{
		NewID: func(prefix string) string {
			n++
			return fmt.Sprintf("%sgen%d", prefix, n)
		},
		Now: func() time.Time { return time.Unix(1767225600, 0) },
	}
}

// dump renders v as indented JSON without its empty members ("", false,
// null, [] and {}), so goldens show what is set.
func dump(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		t.Fatal(err)
	}
	b, err = json.MarshalIndent(prune(tree), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func prune(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			e = prune(e)
			if isEmpty(e) {
				delete(x, k)
			} else {
				x[k] = e
			}
		}
	case []any:
		for i, e := range x {
			x[i] = prune(e)
		}
	}
	return v
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

func indent(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, b)
	}
	return append(buf.Bytes(), '\n')
}

func fixtures(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures match %s", pattern)
	}
	return files
}

// goldenPath names a golden file beside a fixture.
func goldenPath(fixture, suffix string) string {
	return strings.TrimSuffix(fixture, filepath.Ext(fixture)) + suffix
}

// normalizeRequest compacts the JSON text a round trip may re-space.
func normalizeRequest(r *llm.Request) *llm.Request {
	cp := *r
	cp.Messages = make([]llm.Message, len(r.Messages))
	for i, m := range r.Messages {
		m.Content = normalizeParts(m.Content)
		cp.Messages[i] = m
	}
	cp.Tools = make([]llm.Tool, len(r.Tools))
	for i, tool := range r.Tools {
		tool.Parameters = compact(tool.Parameters)
		cp.Tools[i] = tool
	}
	return &cp
}

func normalizeParts(ps []llm.Part) []llm.Part {
	out := make([]llm.Part, len(ps))
	for i, p := range ps {
		if p.Arguments != "" {
			p.Arguments = string(compact([]byte(p.Arguments)))
		}
		p.Result = normalizeParts(p.Result)
		out[i] = p
	}
	return out
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}

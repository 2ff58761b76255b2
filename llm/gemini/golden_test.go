package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with the file at path, or rewrites it with -update.
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
		t.Fatalf("read golden %s: %v (run go test -update to create it)", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// fixtures lists testdata/dir/*ext, failing when there are none.
func fixtures(t *testing.T, dir, ext string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*"+ext))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in testdata/%s: %v", dir, err)
	}
	return paths
}

// goldenPath derives the golden file of a fixture.
func goldenPath(fixture, suffix string) string {
	return strings.TrimSuffix(fixture, filepath.Ext(fixture)) + suffix
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pretty indents a JSON document.
func pretty(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return append(out.Bytes(), '\n')
}

// canonical renders a canonical value as indented JSON without its zero
// fields, so goldens show only what a codec set.
func canonical(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(prune(generic)); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// prune drops zero values from decoded JSON.
func prune(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if p := prune(e); p != nil {
				out[k] = p
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			p := prune(e)
			if p == nil {
				p = map[string]any{}
			}
			out = append(out, p)
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case string:
		if x == "" {
			return nil
		}
	case float64:
		if x == 0 {
			return nil
		}
	case bool:
		if !x {
			return nil
		}
	}
	return v
}

// eventView is an event as a golden file shows it (Raw as text).
type eventView struct {
	llm.Event
	Raw string
}

// dumpEvents renders events one JSON object per line, without Raw.
func dumpEvents(t *testing.T, events []llm.Event) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, e := range events {
		e.Raw = nil
		b, err := json.Marshal(eventView{Event: e})
		if err != nil {
			t.Fatal(err)
		}
		var generic any
		_ = json.Unmarshal(b, &generic)
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(prune(generic)); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

func ptr[T any](v T) *T { return &v }

// collect reads a decoder to its end.
func collect(d llm.StreamDecoder) ([]llm.Event, error) {
	var out []llm.Event
	for {
		e, err := d.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
		if len(out) > 100000 {
			return out, errors.New("decoder does not end")
		}
	}
}

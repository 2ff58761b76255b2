package wirejson

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzSetMember checks that the scanner never panics and that, when
// SetMember accepts a body, it changes nothing but the top-level member: the
// result is JSON, StringMember reads the new value and every other member is
// as it was. It is seeded with the codecs' request fixtures, the bodies the
// scanner meets in practice.
func FuzzSetMember(f *testing.F) {
	files, err := filepath.Glob("../../*/testdata/requests/*.json")
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed files match the codecs' request fixtures (%v)", err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"mo\u0064el":"a","model":"b"}`))
	f.Add([]byte(` {} `))
	f.Add([]byte(`{"model":null,"m":"\"model\":{","model":[{"model":1}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := SetMember(body, "model", "fuzz-model")
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("result is not JSON: %s", out)
		}
		if m, err := StringMember(out, "model"); err != nil || m != "fuzz-model" {
			t.Fatalf("StringMember(result) = %q, %v", m, err)
		}
		var before, after map[string]json.RawMessage
		if json.Unmarshal(body, &before) != nil || json.Unmarshal(out, &after) != nil {
			t.Fatal("body or result is not an object")
		}
		if string(after["model"]) != `"fuzz-model"` {
			t.Fatalf("encoding/json reads model %s", after["model"])
		}
		delete(before, "model")
		delete(after, "model")
		a, _ := json.Marshal(before)
		b, _ := json.Marshal(after)
		if !bytes.Equal(a, b) {
			t.Fatalf("other members changed:\n%s\n%s", a, b)
		}
	})
}

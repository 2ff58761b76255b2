package golden

import (
	"os"
	"path/filepath"
	"testing"
)

func TestHelpers(t *testing.T) {
	dir := t.TempDir()
	fx := filepath.Join(dir, "a.json")
	if err := os.WriteFile(fx, []byte(`{"x":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Glob(t, filepath.Join(dir, "*.json")); len(got) != 1 || got[0] != fx {
		t.Errorf("Glob = %v", got)
	}
	if got := Beside(fx, ".golden.json"); got != filepath.Join(dir, "a.golden.json") {
		t.Errorf("Beside = %s", got)
	}
	if got := string(Indent(t, Read(t, fx))); got != "{\n  \"x\": 1\n}\n" {
		t.Errorf("Indent = %q", got)
	}
	Check(t, fx, []byte(`{"x":1}`))
	if Updating() {
		t.Fatal("tests of this package must not run with -update")
	}
}

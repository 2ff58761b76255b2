package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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

// recordingTB is a testing.TB that records failures instead of failing, so
// a test can prove that Check reports them. FailNow and Fatalf stop the
// calling goroutine the way testing.T does.
type recordingTB struct {
	testing.TB
	errors, fatals []string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
	runtime.Goexit()
}

func (r *recordingTB) Fatal(args ...any) {
	r.fatals = append(r.fatals, fmt.Sprint(args...))
	runtime.Goexit()
}

// record calls f with a fresh recorder on its own goroutine (Fatalf ends it).
func record(t *testing.T, f func(tb testing.TB)) *recordingTB {
	r := &recordingTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

// TestCheckReportsMismatch: Check fails on content that differs from the
// golden file and on a missing golden file, and passes on equal content.
func TestCheckReportsMismatch(t *testing.T) {
	if Updating() {
		t.Skip("-update rewrites instead of comparing")
	}
	path := filepath.Join(t.TempDir(), "want.golden")
	if err := os.WriteFile(path, []byte("want\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := record(t, func(tb testing.TB) { Check(tb, path, []byte("got\n")) })
	if len(r.errors) != 1 || len(r.fatals) != 0 || !strings.Contains(r.errors[0], "differs from the golden file") ||
		!strings.Contains(r.errors[0], "got\n") || !strings.Contains(r.errors[0], "want\n") {
		t.Errorf("mismatch: errors %q, fatals %q; want one error showing both", r.errors, r.fatals)
	}
	r = record(t, func(tb testing.TB) { Check(tb, path+".missing", []byte("got\n")) })
	if len(r.fatals) != 1 || !strings.Contains(r.fatals[0], "-update") {
		t.Errorf("missing golden file: errors %q, fatals %q; want one fatal naming -update", r.errors, r.fatals)
	}
	r = record(t, func(tb testing.TB) { Check(tb, path, []byte("want\n")) })
	if len(r.errors)+len(r.fatals) != 0 {
		t.Errorf("equal content: errors %q, fatals %q", r.errors, r.fatals)
	}
}

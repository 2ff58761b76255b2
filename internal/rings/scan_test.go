package rings

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The house rules a finding breaks.
const (
	ruleImport     = "import"      // a non-test file's import points outward (violation)
	ruleTestImport = "test-import" // a test file's import breaks the test rules (testViolation)
	ruleProvider   = "provider"    // only dispatch/... and app/... import dispatch/provider/...
	ruleIO         = "io"          // a kernel or domain root does file, network, process or env I/O
)

// finding is one use a house rule forbids. target is the imported package
// (relative to the module for ours) or, for I/O, the package whose function
// is called ("os", "net/http").
type finding struct {
	file, pkg, rule, target, why string
	allowed                      bool // an exception covers it
}

func (f finding) String() string {
	return fmt.Sprintf("%s: %s %s: %s", f.file, f.rule, f.target, f.why)
}

// scan is the module's files and every finding in them, exceptions marked.
type scan struct {
	files, tests int
	findings     []finding
	used         map[int]bool // exceptions that allowed a finding, by index
}

var (
	scanOnce   sync.Once
	scanResult scan
	scanErr    error
)

// scanModule parses every Go file of the module once (outside testdata,
// dot directories and node_modules) and applies every rule.
func scanModule(t *testing.T) scan {
	t.Helper()
	scanOnce.Do(func() {
		root, err := filepath.Abs("../..")
		if err != nil {
			scanErr = err
			return
		}
		scanResult, scanErr = scanDir(root)
	})
	if scanErr != nil {
		t.Fatal(scanErr)
	}
	return scanResult
}

func scanDir(root string) (scan, error) {
	s := scan{used: map[int]bool{}}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		test := strings.HasSuffix(rel, "_test.go")
		if test {
			s.tests++
		} else {
			s.files++
		}
		for _, fd := range checkFile(rel, test, f) {
			if i := exceptionFor(fd); i >= 0 {
				fd.allowed, s.used[i] = true, true
			}
			s.findings = append(s.findings, fd)
		}
		return nil
	})
	return s, err
}

// checkFile applies every rule to one parsed file.
func checkFile(rel string, test bool, f *ast.File) []finding {
	dir := filepath.ToSlash(filepath.Dir(rel))
	from := ring(dir)
	var out []finding
	add := func(rule, target, why string) {
		out = append(out, finding{file: rel, pkg: dir, rule: rule, target: target, why: why})
	}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		target := strings.TrimPrefix(p, module+"/")
		if test {
			if why := testViolation(dir, from, p); why != "" {
				add(ruleTestImport, target, why)
			}
		} else if why := violation(dir, from, p); why != "" {
			add(ruleImport, target, why)
		}
		if why := providerViolation(dir, p); why != "" {
			add(ruleProvider, target, why)
		}
	}
	if !test && (from == "kernel" || from == "domain") {
		for _, u := range ioUses(f) {
			add(ruleIO, u.pkg, u.what+": a kernel or domain root does no file, network, process or environment I/O (an adapter or app does)")
		}
	}
	return out
}

// testSupport are the internal packages any test may import.
var testSupport = map[string]bool{
	"internal/testdb": true, "internal/golden": true, "internal/testwait": true, "internal/scalesynth": true,
}

// testViolation is the rule for a test file's import: like violation, but
// any test may use the <pkg>test fakes and the internal test support, and an
// adapter's tests may use their own subpackages and the migrations.
func testViolation(dir, from, p string) string {
	if !strings.HasPrefix(p, module+"/") {
		if from == "domain" || from == "kernel" {
			for _, o := range outside {
				if strings.HasPrefix(p, o) {
					return "a domain or kernel package's tests use no framework or driver (test through a <pkg>test fake)"
				}
			}
		}
		return ""
	}
	to := strings.TrimPrefix(p, module+"/")
	toRing := ring(to)
	switch {
	case from == "root" || testSupport[to]:
		return ""
	case toRing == "root":
		return "a package's tests do not import the composition root or e2e"
	case toRing == "fake" && from != "kernel":
		return ""
	case from == "adapter" && (to == dir || strings.HasPrefix(to, dir+"/")):
		return ""
	}
	if why := violation(dir, from, p); why != "" {
		return why + " (test files too: use a <pkg>test fake)"
	}
	return ""
}

const providerTree = "dispatch/provider"

// providerViolation: only the dispatch tree and app import provider
// adapters, in test files too; only dispatch calls providers.
func providerViolation(dir, p string) string {
	to := strings.TrimPrefix(p, module+"/")
	if to != providerTree && !strings.HasPrefix(to, providerTree+"/") {
		return ""
	}
	for _, ok := range []string{"dispatch", "app"} {
		if dir == ok || strings.HasPrefix(dir, ok+"/") {
			return ""
		}
	}
	return "only dispatch and app import provider adapters"
}

// exceptionFor returns the index of the exception covering f, or -1.
func exceptionFor(f finding) int {
	for i, e := range exceptions {
		if e.pkg == f.pkg && e.rule == f.rule && e.target == f.target {
			return i
		}
	}
	return -1
}

package rings

import (
	"strings"
	"testing"
)

const module = "github.com/heddle-gw/heddle"

// pureSubpackages are domain subpackages without I/O (a pure algorithm, or
// embedded data), which their domain root may import, and generic helpers
// under internal that any ring may use.
var pureSubpackages = map[string]bool{
	"routing/lexical": true, "routing/bundles": true, "routing/offline": true, "internal/ttlcache": true,
}

// offlineTools is the training and evaluation package: the online router and
// its adapters never import it (it imports them).
const offlineTools = "routing/offline"

// ring classifies a package directory (relative to the module root).
func ring(dir string) string {
	top, _, _ := strings.Cut(dir, "/")
	switch {
	case top == "migrations":
		return "data" // embedded SQL, read by app and the store adapters
	case dir == "internal/netpolicy":
		return "kernel" // the pure address policy tenancy, the provider adapters and app share
	case dir == "internal/jsonw":
		return "kernel" // hand-written JSON appenders, no imports of ours
	case pureSubpackages[dir]:
		return "domain"
	case dir == "." || top == "app" || top == "e2e" || top == "internal" || strings.Contains(dir, "/cmd/"):
		return "root" // composition root, black-box tests, tooling, commands
	case top == "llm" || top == "catalog":
		return "kernel"
	case dir == "gateway/httpapi" || top == "web":
		return "presentation"
	case strings.HasSuffix(dir, "test"):
		return "fake" // <pkg>test in-memory fakes, used by other packages' tests
	case strings.Contains(dir, "/"):
		return "adapter"
	}
	return "domain"
}

// outside lists imports a domain package root must not use (fiber, gorm,
// ClickHouse, hugot, Redis: those belong in adapters).
var outside = []string{
	"github.com/gofiber/", "gorm.io/", "github.com/ClickHouse/", "github.com/knights-analytics/",
	"github.com/redis/", "github.com/glebarez/", "github.com/jackc/",
}

// TestImportRings fails on an import that points outward: kernel importing
// anything of ours outside the kernel, a domain root importing a framework or
// driver, an adapter importing another adapter, presentation importing an
// adapter; and in test files on the looser test rules (testViolation).
func TestImportRings(t *testing.T) {
	m := scanModule(t)
	if m.files < 100 {
		t.Fatalf("parsed only %d files", m.files)
	}
	if m.tests < 100 {
		t.Fatalf("parsed only %d test files", m.tests)
	}
	for _, f := range m.findings {
		if (f.rule == ruleImport || f.rule == ruleTestImport) && !f.allowed {
			t.Error(f)
		}
	}
}

func violation(dir, from, p string) string {
	if !strings.HasPrefix(p, module+"/") {
		if from == "domain" {
			for _, o := range outside {
				if strings.HasPrefix(p, o) {
					return "a domain package root uses no framework or driver"
				}
			}
		}
		return ""
	}
	to := strings.TrimPrefix(p, module+"/")
	if to == offlineTools && dir != offlineTools && strings.HasPrefix(dir, "routing") && !strings.Contains(dir, "/cmd/") {
		return "the online router never imports its offline training and evaluation tools"
	}
	toRing := ring(to)
	if toRing == "data" && from != "kernel" && from != "domain" {
		return ""
	}
	switch from {
	case "kernel":
		if toRing != "kernel" {
			return "the kernel imports nothing outside the kernel"
		}
	case "domain":
		if toRing != "kernel" && toRing != "domain" {
			return "a domain package imports only kernel and domain packages"
		}
	case "adapter":
		if toRing == "adapter" && !sameTree(dir, to) {
			return "adapters never import each other"
		}
		if toRing == "presentation" || toRing == "root" {
			return "adapters do not import presentation or the root"
		}
	case "presentation":
		if toRing == "adapter" || toRing == "root" {
			return "presentation imports domain and kernel packages, never adapters"
		}
	case "fake":
		if toRing == "adapter" || toRing == "presentation" || toRing == "root" {
			return "fakes stand in for adapters; they import domain and kernel only"
		}
	}
	return ""
}

// sameTree allows an adapter to use its own internal subpackages
// (dispatch/provider/openai -> dispatch/provider/internal/upstream).
func sameTree(from, to string) bool {
	return strings.Contains(to, "/internal/") && strings.HasPrefix(to, parentOf(parentOf(from))+"/")
}

func parentOf(dir string) string {
	if i := strings.LastIndex(dir, "/"); i >= 0 {
		return dir[:i]
	}
	return dir
}

// TestRingsCatchViolations proves the rules bite on planted imports.
func TestRingsCatchViolations(t *testing.T) {
	tests := []struct {
		dir, imp string
		bad      bool
	}{
		{"llm", module + "/dispatch", true},
		{"llm/anthropic", module + "/llm/sse", false},
		{"llm/anthropic", module + "/llm/internal/wirejson", false},
		{"gateway", "github.com/gofiber/fiber/v2", true},
		{"gateway", module + "/routing", false},
		{"gateway", module + "/analytics/clickhouse", true},
		{"analytics/clickhouse", module + "/tenancy/sqlstore", true},
		{"dispatch/provider/openai", module + "/dispatch/" + "provider/internal/upstream", false},
		{"gateway/httpapi", module + "/tenancy/sqlstore", true},
		{"web", module + "/tenancy", false},
		{"tenancy/tenancytest", module + "/tenancy/sqlstore", true},
		{"app", module + "/analytics/clickhouse", false},
		{"analytics/clickhouse", module + "/migrations/clickhouse", false},
		{"routing", module + "/routing/lexical", false},
		{"routing", module + "/routing/hugotembed", true},
		{"routing", module + "/routing/offline", true},
		{"routing/orgsql", module + "/routing/offline", true},
		{"web", module + "/routing/offline", false},
		{"app", module + "/routing/offline", false},
		{"billing", module + "/internal/ttlcache", false},
		{"routing", module + "/internal/testdb", true},
		{"dispatch", module + "/migrations", true},
		{"tenancy", module + "/internal/netpolicy", false},
		{"dispatch/provider/openaicompat", module + "/internal/netpolicy", false},
		{"tenancy", module + "/internal/testdb", true},
	}
	for _, tt := range tests {
		if got := violation(tt.dir, ring(tt.dir), tt.imp) != ""; got != tt.bad {
			t.Errorf("%s -> %s: violation = %v, want %v", tt.dir, tt.imp, got, tt.bad)
		}
	}
}

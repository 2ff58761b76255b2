package rings

import (
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"
)

// TestRulesCatchPlantedFiles proves each rule bites, and lets legitimate
// uses through, on planted files.
func TestRulesCatchPlantedFiles(t *testing.T) {
	const (
		openai  = module + "/dispatch/provider/openai"
		sqlTen  = module + "/tenancy/sqlstore"
		fakeTen = module + "/tenancy/tenancytest"
	)
	tests := []struct {
		name, file, src string
		want            []string // "rule target" of each finding, in order
	}{
		{"domain test imports an adapter", "gateway/x_test.go",
			`package gateway; import _ "` + sqlTen + `"`, []string{"test-import tenancy/sqlstore"}},
		{"domain test imports a fake", "gateway/x_test.go",
			`package gateway; import _ "` + fakeTen + `"`, nil},
		{"domain test imports a driver", "billing/x_test.go",
			`package billing; import _ "github.com/redis/go-redis/v9"`, []string{"test-import github.com/redis/go-redis/v9"}},
		{"domain test imports the app", "routing/x_test.go",
			`package routing; import _ "` + module + `/app"`, []string{"test-import app"}},
		{"domain test uses the test database", "tenantmodel/x_test.go",
			`package tenantmodel; import _ "` + module + `/internal/testdb"`, nil},
		{"kernel test imports a fake", "llm/x_test.go",
			`package llm; import _ "` + module + `/dispatch/dispatchtest"`, []string{"test-import dispatch/dispatchtest"}},
		{"adapter test imports another adapter", "billing/sqlstore/x_test.go",
			`package sqlstore; import _ "` + sqlTen + `"`, []string{"test-import tenancy/sqlstore"}},
		{"adapter test imports its own subpackage", "routing/hugotembed/x_test.go",
			`package hugotembed; import _ "` + module + `/routing/hugotembed/tinybert"`, nil},
		{"presentation test imports an adapter", "gateway/httpapi/x_test.go",
			`package httpapi; import _ "` + sqlTen + `"`, []string{"test-import tenancy/sqlstore"}},
		{"e2e imports anything", "e2e/x_test.go",
			`package e2e; import _ "` + sqlTen + `"`, nil},
		{"provider outside dispatch, non-test", "gateway/x.go",
			`package gateway; import _ "` + openai + `"`, []string{"import dispatch/provider/openai", "provider dispatch/provider/openai"}},
		{"provider outside dispatch, test", "web/x_test.go",
			`package web; import _ "` + openai + `"`, []string{"test-import dispatch/provider/openai", "provider dispatch/provider/openai"}},
		{"provider in app", "app/x.go",
			`package app; import _ "` + openai + `"`, nil},
		{"provider in dispatch's tests", "dispatch/x_test.go",
			`package dispatch; import _ "` + openai + `"`, []string{"test-import dispatch/provider/openai"}},
		{"os file functions in a domain root", "gateway/x.go",
			"package gateway; import \"os\"; func f() { os.WriteFile(\"a\", nil, 0); _, _ = os.ReadFile(\"a\") }",
			[]string{"io os", "io os"}},
		{"os under another name", "billing/x.go",
			"package billing; import sys \"os\"; func f() { sys.MkdirAll(\"a\", 0) }", []string{"io os"}},
		{"os errors only", "gateway/x.go",
			"package gateway; import (\"errors\"; \"os\"); func f(err error) bool { return errors.Is(err, os.ErrNotExist) }", nil},
		{"environment in a domain root", "routing/x.go",
			"package routing; import \"os\"; var v = os.Getenv(\"X\")", []string{"io os"}},
		{"net in the kernel", "llm/x.go",
			"package llm; import _ \"net\"", []string{"io net"}},
		{"http client in a domain root", "dispatch/x.go",
			"package dispatch; import \"net/http\"; func f() { http.Get(\"http://x\") }", []string{"io net/http"}},
		{"http headers in a domain root", "gateway/x.go",
			"package gateway; import \"net/http\"; type T struct{ H http.Header }", nil},
		{"database/sql in a domain root", "tenancy/x.go",
			"package tenancy; import _ \"database/sql\"", []string{"io database/sql"}},
		{"os in a domain root's test", "gateway/x_test.go",
			"package gateway; import \"os\"; func f() { os.MkdirAll(\"a\", 0) }", nil},
		{"os in an adapter", "analytics/sqlstore/x.go",
			"package sqlstore; import \"os\"; func f() { os.Open(\"a\") }", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := parser.ParseFile(token.NewFileSet(), tt.file, tt.src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, fd := range checkFile(tt.file, strings.HasSuffix(tt.file, "_test.go"), f) {
				got = append(got, fd.rule+" "+fd.target)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestExceptionsMatchFindings: an exception allows exactly its package,
// rule and target.
func TestExceptionsMatchFindings(t *testing.T) {
	e := exceptions[0]
	if exceptionFor(finding{pkg: e.pkg, rule: e.rule, target: e.target}) != 0 {
		t.Errorf("exception %+v does not cover its own finding", e)
	}
	for _, f := range []finding{
		{pkg: e.pkg + "/sub", rule: e.rule, target: e.target},
		{pkg: e.pkg, rule: ruleImport, target: e.target},
		{pkg: e.pkg, rule: e.rule, target: "net"},
	} {
		if i := exceptionFor(f); i >= 0 {
			t.Errorf("finding %+v is covered by exception %+v", f, exceptions[i])
		}
	}
}

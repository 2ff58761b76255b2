package rings

import (
	"testing"
)

// exception lets one package (its directory, relative to the module) break
// one rule for one target (the imported package relative to the module, or
// for ruleIO the package whose functions it calls).
type exception struct {
	pkg, rule, target string
	reason            string
}

// exceptions is the one list of allowed breaks of the house rules, each with
// its reason. An entry that allows nothing fails TestExceptionsAreUsed, so
// the list shrinks when the code it excuses moves.
var exceptions = []exception{
	{"analytics", ruleIO, "os",
		"the writer's spill segments: events survive a store outage in append-only files in HEDDLE_SPILL_DIR, " +
			"replayed by the writer that owns them (SPEC §7: a crash loses at most milliseconds of events)"},
	{"analytics", ruleIO, "syscall",
		"the writer's flock on HEDDLE_SPILL_DIR: one process per spill directory, released by the kernel when the " +
			"process dies (kill -9 included), so a second replica on the same directory fails at start instead of " +
			"replaying and overwriting the first one's journal"},
	{"tenancy", ruleIO, "os",
		"the master keyset (KEK) file: its 0600 creation, atomic rotation rewrite and lock file stay beside the " +
			"vault that is the only code allowed to hold the KEK"},
	{"routing", ruleTestImport, "routing/offline",
		"the org routers' tests train a real bundle with the offline trainer (the online code never imports it)"},
	{"routing/orgsql", ruleTestImport, "routing/offline",
		"the bundle store's tests save and load a bundle the offline trainer built"},
	{"routing/hugotembed", ruleTestImport, "routing/offline",
		"the hugot embedder's tests train and route a bundle over its own embeddings"},
	{"routing/wordvec", ruleTestImport, "routing/offline",
		"the word-vector embedder's tests train a bundle over its embeddings and measure the cache set with it"},
	{"admission", ruleTestImport, "billing/sqlstore",
		"the guard's money path is tested on the real budget store (SQLite and Postgres) as the app wires it"},
	{"admission", ruleTestImport, "tenancy/ratelimitredis",
		"the rate counters are tested on the real Redis store, and the guard fails closed when it is unreachable"},
	{"admission", ruleTestImport, "github.com/redis/go-redis/v9",
		"the unreachable-limiter case builds a real Redis client pointed at a closed port"},
	{"dispatch", ruleTestImport, "dispatch/provider/openai",
		"the executor's tests drive the real OpenAI adapter against dispatchtest's fake upstream"},
	{"dispatch", ruleTestImport, "dispatch/provider/anthropic",
		"the executor's tests drive the real Anthropic adapter against dispatchtest's fake upstream"},
	{"dispatch/idemredis", ruleTestImport, "dispatch/provider/openai",
		"the Redis store is tested under a real executor and provider adapter, as the app wires it"},
	{"analytics/sqlstore", ruleTestImport, "tenancy/sqlstore",
		"the stored-content tests sign organisations up through the real tenancy store on the same test database"},
	{"tenantmodel", ruleTestImport, "tenantmodel/sqlstore",
		"the service's tests run against its real store on a test database (no fake of it exists)"},
	{"web", ruleTestImport, "analytics/sqlstore",
		"the console's privacy tests run analytics.Contents on the real store on a test database"},
	{"web", ruleTestImport, "tenantmodel/sqlstore",
		"the console's model API tests run tenantmodel.Service on its real store on a test database"},
	{"web", ruleTestImport, "credits/sqlstore",
		"the billing and operator pages' tests run credits.Service on its real store on a test database (the reservation's conditional update is the point; no fake of it exists)"},
}

// TestExceptionsAreUsed fails on an exception that allows nothing (stale) or
// has no reason.
func TestExceptionsAreUsed(t *testing.T) {
	m := scanModule(t)
	for i, e := range exceptions {
		if e.reason == "" {
			t.Errorf("exception %s %s %s has no reason", e.pkg, e.rule, e.target)
		}
		if !m.used[i] {
			t.Errorf("exception %s %s %s allows nothing any more: delete it", e.pkg, e.rule, e.target)
		}
	}
}

// TestProviderBoundary fails when a package other than dispatch/... and
// app/... imports a dispatch/provider package, in any file: only dispatch
// calls providers.
func TestProviderBoundary(t *testing.T) {
	m := scanModule(t)
	for _, f := range m.findings {
		if f.rule == ruleProvider && !f.allowed {
			t.Error(f)
		}
	}
}

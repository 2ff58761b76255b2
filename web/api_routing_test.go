package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/internal/testwait"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/web"
)

// routingStore is an in-memory OrgSettingsStore and OrgBundleStore, scoped
// by organisation like the real one.
type routingStore struct {
	mu       sync.Mutex
	settings map[string]routing.OrgSettings
	bundles  map[string][]*routing.Bundle
	changed  []string
}

func newRoutingStore() *routingStore {
	return &routingStore{settings: map[string]routing.OrgSettings{}, bundles: map[string][]*routing.Bundle{}}
}

func (s *routingStore) GetSettings(_ context.Context, org string) (routing.OrgSettings, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings[org], nil
}

func (s *routingStore) PutSettings(_ context.Context, org string, v routing.OrgSettings) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v.UpdatedAt.IsZero() {
		v.UpdatedAt = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	}
	s.settings[org] = v
	return nil
}

func (s *routingStore) PutBundle(_ context.Context, org string, b *routing.Bundle) (routing.BundleInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bundles[org] = append(s.bundles[org], b)
	return routing.InfoOf(org, b, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)), nil
}

func (s *routingStore) GetBundle(_ context.Context, org, id string) (*routing.Bundle, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.bundles[org] {
		if b.ID == id {
			return b, nil
		}
	}
	return nil, routing.ErrBundleNotFound
}

func (s *routingStore) ListBundles(_ context.Context, org string) ([]routing.BundleInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []routing.BundleInfo
	for _, b := range s.bundles[org] {
		out = append(out, routing.InfoOf(org, b, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)))
	}
	return out, nil
}

var testModels = []string{"claude-haiku-4-5", "claude-sonnet-4-5", "gpt-5-mini"}

func withRouting(s *routingStore, maxBytes int64) fixtureOpt {
	return func(d *deps) {
		d.RoutingSettings, d.RoutingBundles = s, s
		d.KnownModel = func(m string) bool { return slices.Contains(testModels, m) }
		d.RoutingChanged = func(org string) { s.changed = append(s.changed, org) }
		d.MaxBundleBytes = maxBytes
	}
}

// evalJSONL generates n samples for the three test models: on coding
// prompts only claude-sonnet-4-5 succeeds, on small talk all do.
func evalJSONL(n int) []byte {
	coding := []string{"refactor the Go http handler", "fix the segfault in the C parser", "write a SQL migration adding an index"}
	chat := []string{"say hello to my grandmother", "thank you so much for the flowers", "tell me a short joke about cats"}
	var buf bytes.Buffer
	for i := range n {
		line := map[string]any{"costs": map[string]float64{"gpt-5-mini": 0.0002, "claude-haiku-4-5": 0.001, "claude-sonnet-4-5": 0.01}}
		if i%2 == 0 {
			line["prompt"] = fmt.Sprintf("%s, variant %d", coding[i/2%3], i)
			line["scores"] = map[string]float64{"gpt-5-mini": 0, "claude-haiku-4-5": float64(i / 2 % 2), "claude-sonnet-4-5": 1}
		} else {
			line["prompt"] = fmt.Sprintf("%s, please %d", chat[i/2%3], i)
			line["scores"] = map[string]float64{"gpt-5-mini": 1, "claude-haiku-4-5": 1, "claude-sonnet-4-5": 1}
		}
		b, _ := json.Marshal(line)
		buf.Write(append(b, '\n'))
	}
	return buf.Bytes()
}

// upload posts body with a Content-Type of its own.
func (c *client) upload(body []byte, ctype string) *resp {
	c.f.t.Helper()
	req := httptest.NewRequest("POST", "/api/v1/routing/bundles", bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	for k, v := range c.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	if c.cookies[web.CSRFCookie] != "" {
		req.Header.Set(web.CSRFHeader, c.cookies[web.CSRFCookie])
	}
	return c.f.send(req, c)
}

// train uploads body as JSONL, wants 202 with a queued job, polls the job
// until it ends and returns it, wanting it done.
func (c *client) train(body []byte) map[string]any {
	c.f.t.Helper()
	r := c.mustStatus(c.upload(body, "application/x-ndjson"), 202)
	job := r.json(c.f.t)["job"].(map[string]any)
	id := job["id"].(string)
	if job["status"] != "queued" || r.header.Get("Location") != "/api/v1/routing/jobs/"+id {
		c.f.t.Fatalf("upload answered %s (Location %q), want a queued job", r.body, r.header.Get("Location"))
	}
	testwait.Until(c.f.t, 5*time.Minute, "training job "+id, func() bool {
		job = c.mustStatus(c.do("GET", "/api/v1/routing/jobs/"+id, nil), 200).json(c.f.t)["job"].(map[string]any)
		return job["status"] != "queued" && job["status"] != "running"
	})
	if job["status"] != "done" {
		c.f.t.Fatalf("training job ended %s", mustJSON(job))
	}
	return job
}

func (r *resp) wantError(t *testing.T, status int, code, field string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	if gotCode, gotField := r.errCode(t); gotCode != code || gotField != field {
		t.Fatalf("error %s on %q, want %s on %q: %s", gotCode, gotField, code, field, r.body)
	}
}

func TestRoutingRoles(t *testing.T) {
	store := newRoutingStore()
	f := newFixture(t, withRouting(store, 0))
	owner := f.browser()
	org := str(owner.signup("owner@a.example", "Org A"), "org", "id")
	roles := map[string]*client{"owner": owner}
	for _, role := range []string{"admin", "member", "viewer"} {
		roles[role] = f.invite(owner, org, role+"@a.example", role)
	}
	for _, tc := range []struct {
		role             string
		put, uploadAllow bool
	}{{"owner", true, true}, {"admin", true, true}, {"member", false, false}, {"viewer", false, false}} {
		t.Run(tc.role, func(t *testing.T) {
			c := roles[tc.role]
			c.mustStatus(c.do("GET", "/api/v1/routing", nil), 200)
			r := c.do("PUT", "/api/v1/routing", map[string]any{"alpha": 0.25})
			if tc.put {
				c.mustStatus(r, 200)
			} else {
				r.wantError(t, 403, "tenancy.forbidden", "")
			}
			if tc.uploadAllow {
				c.train(evalJSONL(50))
			} else {
				r = c.upload(evalJSONL(50), "application/jsonl")
				r.wantError(t, 403, "tenancy.forbidden", "")
			}
		})
	}
	if got := len(store.bundles[org]); got != 2 {
		t.Fatalf("%d bundle uploads stored, want 2 (owner and admin)", got)
	}
	if !slices.Equal(store.changed, []string{org, org}) {
		t.Fatalf("RoutingChanged calls %v, want two for %s", store.changed, org)
	}
}

func TestRoutingValidation(t *testing.T) {
	f := newFixture(t, withRouting(newRoutingStore(), 40<<10))
	a := f.browser()
	a.signup("alice@a.example", "Org A")
	for _, tc := range []struct {
		name        string
		body        any
		status      int
		code, field string
	}{
		{"alpha above 1", map[string]any{"alpha": 1.5}, 400, "routing.invalid_settings", "alpha"},
		{"alpha not a number", map[string]any{"alpha": "high"}, 400, "web.bad_request", "alpha"},
		{"unknown allowed model", map[string]any{"allow": []string{"gpt-5-mini", "claude-haiku-4-5", "gpt-9"}}, 400, "routing.invalid_settings", "allow[2]"},
		{"allowed and denied", map[string]any{"allow": []string{"gpt-5-mini"}, "deny": []string{"gpt-5-mini"}}, 400, "routing.invalid_settings", "deny[0]"},
		{"unknown bundle", map[string]any{"bundle_id": "org-0123456789abcdef"}, 400, "routing.invalid_settings", "bundle_id"},
		{"unknown field", map[string]any{"beta": 3}, 400, "web.bad_request", "beta"},
		{"alias to an unknown model", map[string]any{"aliases": map[string]string{"claude-opus-5-5": "claude-opus-9"}}, 400, "routing.invalid_settings", `aliases["claude-opus-5-5"]`},
		{"alias named auto", map[string]any{"aliases": map[string]string{"Auto": "gpt-5-mini"}}, 400, "routing.invalid_settings", `aliases["auto"]`},
		{"alias names equal but for case", map[string]any{"aliases": map[string]string{"x": "auto", "X": "auto"}}, 400, "routing.invalid_settings", `aliases["x"]`},
	} {
		t.Run("PUT "+tc.name, func(t *testing.T) {
			a.do("PUT", "/api/v1/routing", tc.body).wantError(t, tc.status, tc.code, tc.field)
		})
	}
	bad := append(evalJSONL(60), []byte(`{"prompt":"p","scores":{"gpt-9":1},"costs":{"gpt-9":1}}`+"\n")...)
	for _, tc := range []struct {
		name, ctype string
		body        []byte
		status      int
		code, field string
	}{
		{"json content type", "application/json", evalJSONL(60), 415, "routing.unsupported_media_type", ""},
		{"unknown model", "application/x-ndjson", bad, 422, "routing.invalid_data", "line 61: scores.gpt-9"},
		{"too few samples", "application/x-ndjson", evalJSONL(20), 422, "routing.invalid_data", "body"},
		{"too large", "application/x-ndjson", evalJSONL(400), 413, "web.body_too_large", ""},
	} {
		t.Run("POST "+tc.name, func(t *testing.T) {
			a.upload(tc.body, tc.ctype).wantError(t, tc.status, tc.code, tc.field)
		})
	}
	s := a.mustStatus(a.do("GET", "/api/v1/routing", nil), 200).json(t)
	if len(s["bundles"].([]any)) != 0 || s["settings"].(map[string]any)["updated_at"] != nil {
		t.Fatalf("a refused request changed something: %s", mustJSON(s))
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestRoutingUploadActivate: upload ~200 samples for three known models,
// activate the bundle, and route with it through routing.OrgRouters.
func TestRoutingUploadActivate(t *testing.T) {
	store := newRoutingStore()
	f := newFixture(t, withRouting(store, 0))
	a := f.browser()
	org := str(a.signup("alice@a.example", "Org A"), "org", "id")

	up := a.train(evalJSONL(200))
	id := up["bundle_id"].(string)
	if up["org_id"] != org || up["samples"] != float64(200) || up["percent"] != float64(100) || up["stage"] != "done" ||
		up["via"] != "api" || up["started_at"] == nil || up["finished_at"] == nil {
		t.Fatalf("job %s", mustJSON(up))
	}
	list := a.mustStatus(a.do("GET", "/api/v1/routing", nil), 200).json(t)["bundles"].([]any)
	info := list[0].(map[string]any)
	if len(id) != 20 || info["id"] != id || info["org_id"] != org || info["k"] != float64(8) || info["samples"] != float64(200) ||
		mustJSON(info["models"]) != `["claude-haiku-4-5","claude-sonnet-4-5","gpt-5-mini"]` || len(info["data_hash"].(string)) != 64 ||
		info["revision"] == "" {
		t.Fatalf("bundle %s", mustJSON(info))
	}
	sum := up["summary"].(map[string]any)
	models := sum["models"].([]any)
	if sum["samples"] != float64(200) || sum["k"] != float64(8) || len(sum["cluster_sizes"].([]any)) != 8 || len(models) != 3 ||
		mustJSON(models[2]) != `{"cost_usd":0.0002,"model":"gpt-5-mini","n":200,"quality":0.5}` {
		t.Fatalf("summary %s", mustJSON(sum))
	}
	// Uploaded, listed, not active.
	got := a.mustStatus(a.do("GET", "/api/v1/routing", nil), 200).json(t)
	if got["settings"].(map[string]any)["bundle_id"] != "" || len(got["bundles"].([]any)) != 1 ||
		got["bundles"].([]any)[0].(map[string]any)["id"] != id {
		t.Fatalf("after upload GET = %s", mustJSON(got))
	}
	// Activate with a dial and a deny list.
	put := a.mustStatus(a.do("PUT", "/api/v1/routing", map[string]any{
		"alpha": 0.4, "deny": []string{"claude-haiku-4-5"}, "cache_bypass": true, "bundle_id": id,
	}), 200).json(t)
	want := `{"aliases":{},"allow":[],"alpha":0.4,"bundle_id":"` + id + `","cache_bypass":true,"deny":["claude-haiku-4-5"],"passthrough":true,"updated_at":"2026-11-29T12:00:00Z"}`
	if s := mustJSON(put["settings"]); s != want {
		t.Fatalf("PUT settings = %s, want %s", s, want)
	}
	if !slices.Equal(store.changed, []string{org}) {
		t.Fatalf("RoutingChanged calls %v", store.changed)
	}
	// The gateway's view: OrgRouters serves the organisation's bundle.
	fallback, err := routing.DefaultRouter(routing.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r, s, err := routing.NewOrgRouters(store, store, fallback, routing.Config{}).For(context.Background(), org)
	if err != nil || r.Bundle().ID != id || *s.Alpha != 0.4 || !s.CacheBypass || !slices.Equal(s.Deny, []string{"claude-haiku-4-5"}) {
		t.Fatalf("OrgRouters.For = %v, %+v", err, s)
	}
	d, err := r.Decide(context.Background(), routing.Query{Text: "fix the segfault in the C parser", Alpha: 1,
		Eligible: []string{"gpt-5-mini", "claude-sonnet-4-5"}})
	if err != nil || d.Model != "claude-sonnet-4-5" || d.BundleID != id {
		t.Fatalf("Decide = %s, %v", d.Model, err)
	}
	// Back to the default bundle.
	put = a.mustStatus(a.do("PUT", "/api/v1/routing", map[string]any{"bundle_id": ""}), 200).json(t)
	if s := put["settings"].(map[string]any); s["bundle_id"] != "" || s["alpha"] != nil || s["cache_bypass"] != false {
		t.Fatalf("reset = %s", mustJSON(s))
	}
	f.assertNeverSeen("fix the segfault in the C parser, variant") // no prompt text in responses or logs
}

// TestRoutingIsolation: org A can neither list nor activate org B's bundle,
// and B's settings are unchanged.
func TestRoutingIsolation(t *testing.T) {
	store := newRoutingStore()
	f := newFixture(t, withRouting(store, 0))
	a, b := f.browser(), f.browser()
	a.signup("alice@a.example", "Org A")
	orgB := str(b.signup("bob@b.example", "Org B"), "org", "id")
	job := b.train(evalJSONL(60))
	bID := job["bundle_id"].(string)
	// A's admin can neither read nor cancel B's job.
	a.do("GET", "/api/v1/routing/jobs/"+job["id"].(string), nil).wantError(t, 404, "routing.job_not_found", "")
	a.do("DELETE", "/api/v1/routing/jobs/"+job["id"].(string), nil).wantError(t, 404, "routing.job_not_found", "")
	if jobs := a.mustStatus(a.do("GET", "/api/v1/routing/jobs", nil), 200).json(t)["jobs"].([]any); len(jobs) != 0 {
		t.Fatalf("org A lists %v", jobs)
	}
	b.mustStatus(b.do("PUT", "/api/v1/routing", map[string]any{"alpha": 0.9, "bundle_id": bID}), 200)

	a.do("PUT", "/api/v1/routing", map[string]any{"bundle_id": bID}).wantError(t, 400, "routing.invalid_settings", "bundle_id")
	got := a.mustStatus(a.do("GET", "/api/v1/routing", nil), 200)
	if bytes.Contains(got.body, []byte(bID)) || bytes.Contains(got.body, []byte("0.9")) {
		t.Fatalf("org A sees org B's routing: %s", got.body)
	}
	s := store.settings[orgB]
	if s.BundleID != bID || *s.Alpha != 0.9 {
		t.Fatalf("org B's settings changed: %+v", s)
	}
}

// TestRoutingAliases: aliases are normalised (trimmed, lower case), stored,
// shown, and replaced by the next PUT.
func TestRoutingAliases(t *testing.T) {
	f := newFixture(t, withRouting(newRoutingStore(), 0))
	a := f.browser()
	a.signup("alice@a.example", "Org A")
	s := a.mustStatus(a.do("PUT", "/api/v1/routing", map[string]any{
		"aliases": map[string]string{" Claude-Opus-5-5 ": "claude-haiku-4-5", "fast": "auto"},
	}), 200).json(t)
	got := s["settings"].(map[string]any)["aliases"].(map[string]any)
	if len(got) != 2 || got["claude-opus-5-5"] != "claude-haiku-4-5" || got["fast"] != "auto" {
		t.Fatalf("aliases %v", got)
	}
	s = a.mustStatus(a.do("PUT", "/api/v1/routing", map[string]any{"alpha": 0.5}), 200).json(t)
	if got := s["settings"].(map[string]any)["aliases"].(map[string]any); len(got) != 0 {
		t.Fatalf("a PUT without aliases kept %v", got)
	}
}

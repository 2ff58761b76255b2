package web_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	anasql "github.com/heddle-gw/heddle/analytics/sqlstore"
	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/tenancy"
)

// lateVault is a ContentSealer whose vault is set once the fixture's
// tenancy store exists (the organisations live there).
type lateVault struct {
	mu sync.Mutex
	v  *tenancy.Vault
}

func (l *lateVault) get() *tenancy.Vault { l.mu.Lock(); defer l.mu.Unlock(); return l.v }

func (l *lateVault) SealContent(ctx context.Context, org, req string, pt []byte) ([]byte, int64, error) {
	return l.get().SealContent(ctx, org, req, pt)
}

func (l *lateVault) OpenContent(ctx context.Context, org, req string, ver int64, ct []byte) ([]byte, error) {
	return l.get().OpenContent(ctx, org, req, ver, ct)
}

// privacyFixture is the API with content storage over a real SQLite store.
type privacyFixture struct {
	*fixture
	contents *analytics.Contents
	vault    *tenancy.Vault
}

func newPrivacyFixture(t *testing.T) privacyFixture {
	t.Helper()
	lv := &lateVault{}
	contents := analytics.NewContents(anasql.New(testdb.SQLite(t).DB), lv, analytics.ContentsConfig{})
	f := newFixture(t, func(d *deps) { d.Privacy = contents })
	path := filepath.Join(t.TempDir(), "content-master.json")
	if _, err := tenancy.EnsureDevKeyset(path); err != nil {
		t.Fatal(err)
	}
	v, err := tenancy.NewVault(tenancy.FileKeyset(path), f.store, tenancy.VaultConfig{})
	if err != nil {
		t.Fatal(err)
	}
	lv.mu.Lock()
	lv.v = v
	lv.mu.Unlock()
	return privacyFixture{fixture: f, contents: contents, vault: v}
}

func (p privacyFixture) keep(t *testing.T, org, id, prompt string) {
	t.Helper()
	err := p.contents.Keep(context.Background(), analytics.TurnContent{OrgID: org, KeyID: "key_1", RequestID: id, Time: time.Now(),
		Request:  &llm.Request{Model: "gpt-5-mini", Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: prompt}}}}},
		Response: &llm.Response{Content: []llm.Part{{Type: llm.PartText, Text: "answer to " + prompt}}}})
	if err != nil {
		t.Fatal(err)
	}
}

func TestPrivacyAPI(t *testing.T) {
	p := newPrivacyFixture(t)
	owner := p.browser()
	org := str(owner.signup("owner@a.example", "Org A"), "org", "id")

	// Off by default, with the default retention.
	m := owner.mustStatus(owner.do("GET", "/api/v1/privacy", nil), 200).json(t)
	if m["store_content"] != false || m["retention_days"] != float64(7) || m["updated_at"] != nil {
		t.Fatalf("default privacy: %v", m)
	}
	p.keep(t, org, "req_off", "prompt while off")
	if code, _ := owner.mustStatus(owner.do("GET", "/api/v1/requests/req_off/content", nil), 404).errCode(t); code != "analytics.not_found" {
		t.Fatalf("code %s", code)
	}

	// Validation names the field.
	for _, c := range []struct {
		body  string
		field string
	}{
		{`{"store_content":true,"retention_days":91}`, "retention_days"},
		{`{"store_content":true,"retention_days":0}`, "retention_days"},
		{`{"store_content":true,"retention_days":"7"}`, "retention_days"},
		{`{"store_content":"yes"}`, "store_content"},
		{`{"retention_days":7}`, "store_content"},
		{`{"store_content":true,"ttl":3}`, "ttl"},
	} {
		r := owner.mustStatus(owner.do("PUT", "/api/v1/privacy", c.body), 400)
		if _, field := r.errCode(t); field != c.field {
			t.Errorf("%s: field %q, want %q (%s)", c.body, field, c.field, r.body)
		}
	}

	m = owner.mustStatus(owner.do("PUT", "/api/v1/privacy", `{"store_content":true,"retention_days":30}`), 200).json(t)
	if m["store_content"] != true || m["retention_days"] != float64(30) || m["updated_at"] == nil {
		t.Fatalf("after PUT: %v", m)
	}
	p.keep(t, org, "req_1", "tell me a <secret>")
	m = owner.mustStatus(owner.do("GET", "/api/v1/requests/req_1/content", nil), 200).json(t)
	if m["request_id"] != "req_1" || m["key_id"] != "key_1" || !strings.Contains(str(m, "request"), "tell me a <secret>") ||
		!strings.Contains(str(m, "response"), "answer to tell me") || m["request_truncated"] != false {
		t.Fatalf("content: %v", m)
	}
	created, _ := time.Parse(time.RFC3339, str(m, "created_at"))
	expires, _ := time.Parse(time.RFC3339, str(m, "expires_at"))
	if d := expires.Sub(created); d < 30*24*time.Hour-time.Second || d > 30*24*time.Hour+time.Second {
		t.Fatalf("retention %v, want 30 days", d)
	}

	// Members of another organisation get 404, and so does a viewer's
	// attempt to change anything get 403.
	other := p.browser()
	other.signup("owner@b.example", "Org B")
	other.mustStatus(other.do("GET", "/api/v1/requests/req_1/content", nil), 404)
	viewer := p.invite(owner, org, "viewer@a.example", "viewer")
	viewer.mustStatus(viewer.do("GET", "/api/v1/privacy", nil), 200)
	viewer.mustStatus(viewer.do("PUT", "/api/v1/privacy", `{"store_content":false}`), 403)
	viewer.mustStatus(viewer.do("DELETE", "/api/v1/privacy/content", nil), 403)
	// Stored prompts and responses are for admins and owners only.
	if code, _ := viewer.mustStatus(viewer.do("GET", "/api/v1/requests/req_1/content", nil), 403).errCode(t); code != "tenancy.forbidden" {
		t.Fatal("viewer read stored content")
	}
	member := p.invite(owner, org, "member@a.example", "member")
	member.mustStatus(member.do("GET", "/api/v1/requests/req_1/content", nil), 403)
	admin := p.invite(owner, org, "admin@a.example", "admin")
	admin.mustStatus(admin.do("GET", "/api/v1/requests/req_1/content", nil), 200)

	// Turning it off keeps what was stored; delete-all removes it.
	owner.mustStatus(owner.do("PUT", "/api/v1/privacy", `{"store_content":false}`), 200)
	owner.mustStatus(owner.do("GET", "/api/v1/requests/req_1/content", nil), 200)
	m = owner.mustStatus(owner.do("DELETE", "/api/v1/privacy/content", nil), 200).json(t)
	if m["deleted"] != float64(1) {
		t.Fatalf("delete: %v", m)
	}
	owner.mustStatus(owner.do("GET", "/api/v1/requests/req_1/content", nil), 404)

	// The logs never carry the prompt.
	if strings.Contains(p.logs.String(), "tell me a") {
		t.Fatal("the logs contain the prompt")
	}
}

// TestPrivacyAPIReplacedDataKey: content sealed before the organisation's
// data key was replaced (vault rotate --reencrypt-org) answers 410.
func TestPrivacyAPIReplacedDataKey(t *testing.T) {
	p := newPrivacyFixture(t)
	owner := p.browser()
	org := str(owner.signup("owner@a.example", "Org A"), "org", "id")
	owner.mustStatus(owner.do("PUT", "/api/v1/privacy", `{"store_content":true}`), 200)
	p.keep(t, org, "req_1", "before the new key")
	owner.mustStatus(owner.do("GET", "/api/v1/requests/req_1/content", nil), 200)
	if _, err := p.vault.ReencryptOrg(context.Background(), org); err != nil {
		t.Fatal(err)
	}
	if code, _ := owner.mustStatus(owner.do("GET", "/api/v1/requests/req_1/content", nil), 410).errCode(t); code != "analytics.content_unreadable" {
		t.Fatalf("code %s", code)
	}
}

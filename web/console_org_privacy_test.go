package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tink-crypto/tink-go/v2/aead"
	"github.com/tink-crypto/tink-go/v2/keyset"
	"github.com/tink-crypto/tink-go/v2/tink"

	"github.com/heddle-gw/heddle/analytics"
	anasql "github.com/heddle-gw/heddle/analytics/sqlstore"
	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/llm"
)

// aeadSealer seals content with one AES-GCM key and the content associated
// data (the console fixture's organisations live in a store it does not
// expose, so the vault is tested elsewhere).
type aeadSealer struct{ a tink.AEAD }

func newAEADSealer(t *testing.T) aeadSealer {
	t.Helper()
	h, err := keyset.NewHandle(aead.AES256GCMKeyTemplate())
	if err != nil {
		t.Fatal(err)
	}
	a, err := aead.New(h)
	if err != nil {
		t.Fatal(err)
	}
	return aeadSealer{a}
}

func (s aeadSealer) SealContent(_ context.Context, org, req string, pt []byte) ([]byte, int64, error) {
	ct, err := s.a.Encrypt(pt, []byte(org+"|"+req+"|content"))
	return ct, 1, err
}

func (s aeadSealer) OpenContent(_ context.Context, org, req string, _ int64, ct []byte) ([]byte, error) {
	return s.a.Decrypt(ct, []byte(org+"|"+req+"|content"))
}

func TestConsolePrivacy(t *testing.T) {
	contents := analytics.NewContents(anasql.New(testdb.SQLite(t).DB), newAEADSealer(t), analytics.ContentsConfig{})
	f := newConsoleFixture(t, func(d *deps) { d.Privacy = contents })
	owner := f.visitor()
	orgID := owner.signup("owner@example.com")

	p := owner.get("/org", nil)
	if p.status != 200 || p.text("privacy-state") != "off" || p.text("privacy-retention") != "7 days" || p.tid("privacy-form").Length() != 1 ||
		p.tid("privacy-delete-all").Length() != 1 || !strings.Contains(p.text("privacy-explain"), "deletes nothing") {
		t.Fatalf("privacy section: %d %s", p.status, p.body)
	}

	// A refused retention re-renders the section with the field's reason.
	p = owner.post("/org/privacy", url.Values{"store_content": {"on"}, "retention_days": {"120"}}, htmx)
	if p.status != 422 || p.isFullPage() || !strings.Contains(p.body, "from 1 to 90") ||
		p.tid("privacy-retention-days").AttrOr("value", "") != "120" || p.text("privacy-state") != "off" {
		t.Fatalf("refused retention: %d %s", p.status, p.body)
	}
	p = owner.post("/org/privacy", url.Values{"store_content": {"on"}, "retention_days": {"3"}}, htmx)
	if p.status != 200 || p.text("privacy-state") != "on" || p.text("privacy-retention") != "3 days" || p.tid("privacy-saved").Length() != 1 {
		t.Fatalf("saved: %d %s", p.status, p.body)
	}
	if s, err := contents.Settings(context.Background(), orgID); err != nil || !s.StoreContent || s.RetentionDays != 3 {
		t.Fatalf("stored settings %+v, %v", s, err)
	}

	// The timeline shows the stored prompt and response, escaped.
	ctx := context.Background()
	if err := f.reader.InsertRequests(ctx, []analytics.Request{
		request(orgID, "req_c", time.Minute, "gpt-5", "explicit", 200, "", 10, 20),
		request(orgID, "req_none", time.Minute, "gpt-5", "explicit", 200, "", 10, 20),
	}); err != nil {
		t.Fatal(err)
	}
	err := contents.Keep(ctx, analytics.TurnContent{OrgID: orgID, KeyID: "key-1", RequestID: "req_c", Time: time.Now(),
		Request:  &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "<script>alert(1)</script> please"}}}}},
		Response: &llm.Response{Content: []llm.Part{{Type: llm.PartText, Text: "a polite answer"}}}})
	if err != nil {
		t.Fatal(err)
	}
	p = owner.get("/requests/req_c", nil)
	if p.status != 200 || !strings.Contains(p.text("content-request"), "<script>alert(1)</script> please") ||
		!strings.Contains(p.text("content-response"), "a polite answer") || p.tid("content-not-stored").Length() != 0 {
		t.Fatalf("timeline content: %d %s", p.status, p.body)
	}
	if strings.Contains(p.body, "<script>alert(1)") || p.doc.Find(`pre[data-testid="content-request"]`).Length() != 1 {
		t.Fatal("the prompt is not escaped inside a <pre>")
	}
	p = owner.get("/requests/req_none", nil)
	if p.status != 200 || !strings.HasPrefix(p.text("content-not-stored"), "Content not stored") || p.tid("content").Length() != 0 {
		t.Fatalf("timeline without content: %d %s", p.status, p.body)
	}

	// A viewer sees the settings read-only and cannot change them.
	viewer := f.join(owner, "viewer@example.com", "viewer")
	p = viewer.get("/org", nil)
	if p.tid("privacy-readonly").Length() != 1 || p.tid("privacy-form").Length() != 0 || p.tid("privacy-delete-all").Length() != 0 {
		t.Fatalf("viewer's privacy section: %s", p.body)
	}
	if p = viewer.post("/org/privacy/delete", url.Values{}, htmx); p.status != 403 {
		t.Fatalf("viewer delete-all: %d", p.status)
	}
	// Nor does a viewer or a member read the stored prompt and response.
	member := f.join(owner, "member@example.com", "member")
	for _, v := range []*visitor{viewer, member} {
		p = v.get("/requests/req_c", nil)
		if p.status != 200 || p.tid("content").Length() != 0 || strings.Contains(p.body, "a polite answer") ||
			!strings.HasPrefix(p.text("content-not-stored"), "Content hidden") {
			t.Fatalf("a non-admin's timeline shows content: %d %s", p.status, p.body)
		}
	}

	// Turning it off keeps stored content; delete-all removes it.
	p = owner.post("/org/privacy", url.Values{"retention_days": {"3"}}, htmx)
	if p.status != 200 || p.text("privacy-state") != "off" || !strings.Contains(p.text("privacy-saved"), "kept until it expires") {
		t.Fatalf("turned off: %d %s", p.status, p.body)
	}
	if p = owner.get("/requests/req_c", nil); p.tid("content").Length() != 1 {
		t.Fatal("turning storage off deleted content")
	}
	p = owner.post("/org/privacy/delete", url.Values{}, htmx)
	if p.status != 200 || !strings.Contains(p.text("privacy-saved"), "Deleted 1 ") {
		t.Fatalf("delete all: %d %s", p.status, p.body)
	}
	if p = owner.get("/requests/req_c", nil); p.tid("content-not-stored").Length() != 1 {
		t.Fatalf("content after delete-all: %s", p.body)
	}
}

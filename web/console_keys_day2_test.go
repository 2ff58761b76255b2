package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/web"
)

// TestConsoleKeysTagsSpendExpiry: the create form takes tags and an expiry
// date; the list shows them and the key's spend this UTC month (last
// month's requests not counted).
func TestConsoleKeysTagsSpendExpiry(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	org := v.signup("keyspend@example.com")
	form := url.Values{"name": {"svc"}, "scopes": {"inference"}, "tags": {"Team:Search, ci"}, "expires": {"2027-01-31"},
		"csrf_token": {v.cookies[web.CSRFCookie]}}
	if p := v.post("/keys", form, nil); p.status != 201 {
		t.Fatalf("create: %d %s", p.status, p.text("key-form-error"))
	}
	id := createdKeyID(t, v, "svc")
	mk := func(ev string, ago time.Duration, cost int64) analytics.Request {
		r := request(org, ev, ago, "gpt-5-mini", "routed", 200, "", cost, cost)
		r.KeyID = id
		return r
	}
	// consoleNow is 2026-11-29: 28 days ago is still November, 30 days ago October.
	if err := f.reader.InsertRequests(context.Background(), []analytics.Request{
		mk("s1", time.Hour, 1_250_000), mk("s2", 28*24*time.Hour, 250_000), mk("s3", 30*24*time.Hour, 9_000_000),
	}); err != nil {
		t.Fatal(err)
	}
	listed := v.get("/keys", nil).tid("key-row-" + id)
	cell := func(tid string) string { return strings.TrimSpace(listed.Find(`[data-testid="` + tid + `"]`).Text()) }
	if got := listed.Find(`[data-testid="key-tags"] .tag`).Map(func(_ int, s *goquery.Selection) string { return s.Text() }); strings.Join(got, ",") != "ci,team:search" {
		t.Errorf("tags %v", got)
	}
	if got := cell("key-spend"); got != "$1.50" {
		t.Errorf("spend %q, want $1.50", got)
	}
	if got := cell("key-expires"); got != "2027-01-31 23:59:59 UTC" {
		t.Errorf("expires %q", got)
	}
	bad := url.Values{"name": {"bad"}, "scopes": {"inference"}, "tags": {"has space"}, "csrf_token": {v.cookies[web.CSRFCookie]}}
	if p := v.post("/keys", bad, htmx); p.status != 422 || p.tid("field-error-tags").Length() != 1 {
		t.Errorf("invalid tag: %d %s", p.status, p.body)
	}

	// The edit form edits the tags too: shown as stored, replaced, refused
	// when invalid (nothing changed), and cleared when emptied.
	tags := func(p *page) string {
		return strings.Join(p.tid("key-row-"+id).Find(`[data-testid="key-tags"] .tag`).Map(func(_ int, s *goquery.Selection) string { return s.Text() }), ",")
	}
	if got := row(t, v.get("/keys/"+id+"/edit", htmx)).tid("key-edit-tags").AttrOr("value", "?"); got != "ci, team:search" {
		t.Errorf("edit form tags %q, want the stored ones", got)
	}
	edit := func(tagField string) *page {
		return row(t, v.post("/keys/"+id+"/edit", url.Values{"policy": {"explicit"}, "tags": {tagField}}, htmx))
	}
	if p := edit("prod, Team:Billing"); p.status != 200 || tags(p) != "prod,team:billing" {
		t.Errorf("saved tags: %d %q %s", p.status, tags(p), p.body)
	}
	if p := edit("has space"); p.status != 422 || p.tid("field-error-tags").Length() != 1 || p.tid("key-edit-tags").AttrOr("value", "") != "has space" {
		t.Errorf("invalid tag in the edit form: %d %s", p.status, p.body)
	}
	if got := tags(v.get("/keys", nil)); got != "prod,team:billing" {
		t.Errorf("after a refused edit the tags are %q", got)
	}
	if p := edit(""); p.status != 200 || tags(p) != "" {
		t.Errorf("emptied tags: %d %q", p.status, tags(p))
	}
}

func createdKeyID(t *testing.T, v *visitor, name string) string {
	t.Helper()
	var id string
	v.get("/keys", nil).doc.Find(`[data-testid^="key-row-"]`).Each(func(_ int, s *goquery.Selection) {
		if strings.TrimSpace(s.Find(`[data-testid="key-name"]`).Text()) == name {
			id = strings.TrimPrefix(s.AttrOr("data-testid", ""), "key-row-")
		}
	})
	if id == "" {
		t.Fatalf("key %q not listed", name)
	}
	return id
}

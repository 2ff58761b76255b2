package web_test

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/heddle-gw/heddle/internal/testwait"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/web"
)

// train posts data as the file of the training form, with the session's
// CSRF token in the form unless withToken is false.
func (v *visitor) train(data []byte, withToken bool, h hdr) *page {
	v.f.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if withToken {
		if err := mw.WriteField("csrf_token", v.cookies[web.CSRFCookie]); err != nil {
			v.f.t.Fatal(err)
		}
	}
	if data != nil {
		fw, err := mw.CreateFormFile("file", "eval.jsonl")
		if err != nil {
			v.f.t.Fatal(err)
		}
		fw.Write(data)
	}
	mw.Close()
	req := httptest.NewRequest("POST", "/routing/bundles", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	for k, val := range v.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: val})
	}
	for k, val := range h {
		req.Header.Set(k, val)
	}
	resp, err := v.f.app.Test(req, -1)
	if err != nil {
		v.f.t.Fatalf("POST /routing/bundles: %v", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(raw))
	if err != nil {
		v.f.t.Fatal(err)
	}
	return &page{status: resp.StatusCode, header: resp.Header, body: string(raw), doc: doc}
}

func TestConsoleTrainBundle(t *testing.T) {
	store := newRoutingStore()
	f := newConsoleFixture(t, withRouting(store, 0))
	v := f.visitor()
	org := v.signup("trainer@example.com")

	empty := v.get("/routing", nil)
	if empty.tid("routing-train-form").Length() != 1 || empty.tid("routing-train-file").AttrOr("type", "") != "file" ||
		empty.tid("routing-bundles-empty").Length() != 1 || !strings.Contains(empty.text("routing-train-form"), "50 to 20000 lines, at most 10 MB") ||
		!strings.HasPrefix(empty.text("routing-train-example"), `{"prompt":`) {
		t.Fatalf("routing page before training: %s", empty.body)
	}
	if enc := empty.tid("routing-train-form").AttrOr("enctype", ""); enc != "multipart/form-data" {
		t.Errorf("training form enctype %q", enc)
	}

	q := v.train(evalJSONL(200), true, htmx)
	jobID := q.tid("routing-queued").AttrOr("data-job-id", "")
	if q.status != 202 || q.isFullPage() || jobID == "" || q.tid("routing-job-"+jobID).Length() != 1 ||
		q.text("routing-queued") != "Training of 200 samples queued as job "+jobID+"; its progress shows above." {
		t.Fatalf("upload: %d: %s", q.status, q.body)
	}
	p := v.pollJob(jobID)
	if p.isFullPage() || p.header.Get("HX-Retarget") != "#routing-content" || len(store.bundles[org]) != 1 {
		t.Fatalf("done job: %d bundles stored, retarget %q: %s", len(store.bundles[org]), p.header.Get("HX-Retarget"), p.body)
	}
	if job := p.tid("routing-job-" + jobID); job.AttrOr("data-status", "") != "done" || job.AttrOr("hx-get", "") != "" {
		t.Errorf("a done job still polls or is not done: %s", p.body)
	}
	b := store.bundles[org][0]
	want := "Bundle " + b.ID + " trained: 8 clusters, 200 samples, models claude-haiku-4-5, claude-sonnet-4-5, gpt-5-mini; select it as the active bundle above and save to activate it."
	if got := p.text("routing-trained"); got != want || p.tid("routing-trained").AttrOr("data-bundle-id", "") != b.ID {
		t.Errorf("success message %q, want %q", got, want)
	}
	if p.tid("routing-bundle-"+b.ID).Length() != 1 || p.tid("routing-form").Length() != 1 || p.tid("routing-train-error").Length() != 0 {
		t.Errorf("the new bundle is not selectable at once: %s", p.body)
	}
	row := p.tid("routing-bundles-row-" + b.ID).Find("td")
	cells := row.Map(func(_ int, s *goquery.Selection) string { return strings.TrimSpace(s.Text()) })
	if len(cells) != 7 || cells[0] != b.ID || cells[1] != "claude-haiku-4-5, claude-sonnet-4-5, gpt-5-mini" || cells[2] != "200" ||
		cells[3] != "8" || cells[4] == "" || cells[5] != b.Training.DataHash[:12] || cells[6] != "" {
		t.Errorf("bundle row %q", cells)
	}
	if strings.Contains(p.body, "fix the segfault") {
		t.Error("the response shows prompt text")
	}

	// Selecting it activates it; the table marks it active.
	s := v.post("/routing", url.Values{"bundle_id": {b.ID}}, htmx)
	if s.status != 200 || store.settings[org].BundleID != b.ID || s.tid("routing-bundles-active-"+b.ID).Length() != 1 ||
		s.tid("routing-bundle-"+b.ID).AttrOr("selected", "x") == "x" || s.tid("routing-train-form").Length() != 1 {
		t.Fatalf("activate: %d %s", s.status, s.body)
	}

	// Without htmx the whole page comes back; the active bundle stays active.
	queued := v.train(evalJSONL(120), true, nil)
	if queued.status != 202 || !queued.isFullPage() {
		t.Fatalf("non-htmx upload: %d %s", queued.status, queued.body)
	}
	second := queued.tid("routing-queued").AttrOr("data-job-id", "")
	v.pollJob(second)
	full := v.get("/routing/jobs/"+second, nil)
	if full.status != 200 || !full.isFullPage() || len(store.bundles[org]) != 2 {
		t.Fatalf("non-htmx job page: %d %s", full.status, full.body)
	}
	second = store.bundles[org][1].ID
	if !strings.Contains(full.text("routing-trained"), second+" trained: 4 clusters, 120 samples") ||
		full.tid("routing-bundles-active-"+b.ID).Length() != 1 || full.tid("routing-bundles-active-"+second).Length() != 0 ||
		full.tid("routing-bundles-row-"+second).Length() != 1 || store.settings[org].BundleID != b.ID {
		t.Errorf("non-htmx upload page: %s", full.body)
	}
}

func TestConsoleTrainBundleRefused(t *testing.T) {
	store := newRoutingStore()
	f := newConsoleFixture(t, withRouting(store, 40<<10))
	v := f.visitor()
	org := v.signup("refused@example.com")
	valid := evalJSONL(60)
	with := func(lines ...string) []byte {
		return append(bytes.Clone(valid), []byte(strings.Join(lines, "\n")+"\n")...)
	}
	for _, tc := range []struct {
		name   string
		data   []byte
		status int
		msg    string
	}{
		{"unknown model", with(`{"prompt":"p","scores":{"gpt-9":1},"costs":{"gpt-9":1}}`), 422, "line 61: scores.gpt-9: unknown model"},
		{"not JSON", with(`{"prompt":"p",`), 422, "line 61: json: not a JSON object"},
		{"cost missing", with(`{"prompt":"p","scores":{"gpt-5-mini":1}}`), 422, "line 61: costs.gpt-5-mini: is missing for a scored model"},
		{"wrong type", with(`{"prompt":"p","scores":{"gpt-5-mini":"high"},"costs":{"gpt-5-mini":1}}`), 422, "line 61: scores: has the wrong type"},
		{"too few samples", evalJSONL(20), 422, "file: 20 samples, at least 50 are needed"},
		{"too large", evalJSONL(400), 413, "file: larger than 40 kB"},
		{"no file", nil, 422, "file: choose a JSONL file to upload"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := v.train(tc.data, true, htmx)
			if p.status != tc.status || p.isFullPage() {
				t.Fatalf("status %d, want %d: %s", p.status, tc.status, p.body)
			}
			if got, want := p.text("routing-train-error"), "No bundle was trained: "+tc.msg+"."; got != want {
				t.Errorf("error %q, want %q", got, want)
			}
			if p.tid("routing-form").Length() != 1 || p.tid("routing-bundles").Length() != 1 || p.tid("routing-train-file").Length() != 1 ||
				p.tid("routing-trained").Length() != 0 {
				t.Errorf("the rest of the page is not intact: %s", p.body)
			}
		})
	}
	if full := v.train(evalJSONL(20), true, nil); full.status != 422 || !full.isFullPage() || full.tid("routing-train-error").Length() != 1 {
		t.Errorf("non-htmx refusal: %d", full.status)
	}
	if n := len(store.bundles[org]); n != 0 {
		t.Fatalf("%d bundles stored from refused uploads", n)
	}
}

// pollJob polls the job's status fragment as htmx does until the job
// ends, and returns the last answer.
func (v *visitor) pollJob(id string) *page {
	v.f.t.Helper()
	var p *page
	testwait.Until(v.f.t, 5*time.Minute, "training job "+id, func() bool {
		p = v.get("/routing/jobs/"+id, htmx)
		if p.status != 200 {
			v.f.t.Fatalf("poll %s: %d %s", id, p.status, p.body)
		}
		st := p.tid("routing-job-"+id).AttrOr("data-status", "")
		return st != "queued" && st != "running"
	})
	return p
}

// blockingBundles holds PutBundle until release is closed, so that a
// training stays in progress.
type blockingBundles struct {
	*routingStore
	entered chan string
	release chan struct{}
}

func (b *blockingBundles) PutBundle(ctx context.Context, org string, bundle *routing.Bundle) (routing.BundleInfo, error) {
	b.entered <- org
	select {
	case <-b.release:
	case <-ctx.Done():
	}
	if err := ctx.Err(); err != nil {
		return routing.BundleInfo{}, err // as a real store refuses a cancelled context
	}
	return b.routingStore.PutBundle(ctx, org, bundle)
}

// TestConsoleTrainingJobs: while one organisation's bundle trains, another
// uploads and is queued (never refused); the running job shows its stage and
// percent, the queued one can be cancelled from its card, and the first
// finishes.
func TestConsoleTrainingJobs(t *testing.T) {
	store := newRoutingStore()
	blocking := &blockingBundles{routingStore: store, entered: make(chan string, 2), release: make(chan struct{})}
	f := newConsoleFixture(t, withRouting(store, 0), func(d *deps) { d.RoutingBundles = blocking })
	a, b := f.visitor(), f.visitor()
	orgA := a.signup("first@example.com")
	orgB := b.signup("second@example.com")

	first := a.train(evalJSONL(60), true, htmx)
	idA := first.tid("routing-queued").AttrOr("data-job-id", "")
	if first.status != 202 || idA == "" {
		t.Fatalf("first upload: %d %s", first.status, first.body)
	}
	if got := <-blocking.entered; got != orgA {
		t.Fatalf("storing for %s, want %s", got, orgA)
	}
	running := a.get("/routing/jobs/"+idA, htmx)
	card := running.tid("routing-job-" + idA)
	if card.AttrOr("data-status", "") != "running" || card.AttrOr("hx-get", "") != "/routing/jobs/"+idA || card.AttrOr("hx-trigger", "") != "every 1s" ||
		running.tid("routing-job-progress-"+idA).AttrOr("value", "") != "95" || !strings.Contains(card.Text(), "storing, 95%") ||
		running.tid("routing-job-cancel-"+idA).Length() != 1 || running.isFullPage() {
		t.Fatalf("running job card: %s", running.body)
	}
	// Another organisation is never refused while A trains.
	second := b.train(evalJSONL(60), true, htmx)
	idB := second.tid("routing-queued").AttrOr("data-job-id", "")
	if second.status != 202 || idB == "" || second.tid("routing-job-"+idB).Length() != 1 {
		t.Fatalf("concurrent upload: %d %s", second.status, second.body)
	}
	if got := <-blocking.entered; got != orgB {
		t.Fatalf("storing for %s, want %s", got, orgB)
	}
	// A cannot see B's job; B cancels it from its card.
	if p := a.get("/routing/jobs/"+idB, htmx); p.status != 404 {
		t.Fatalf("org A reads org B's job: %d %s", p.status, p.body)
	}
	c := b.post("/routing/jobs/"+idB+"/cancel", url.Values{}, htmx)
	card = c.tid("routing-job-" + idB)
	if c.status != 200 || card.AttrOr("data-status", "") != "cancelled" || card.AttrOr("hx-get", "") != "" ||
		!strings.HasPrefix(c.text("routing-job-detail-"+idB), "cancelled by ") || c.tid("routing-job-cancel-"+idB).Length() != 0 {
		t.Fatalf("cancel: %d %s", c.status, c.body)
	}
	close(blocking.release)
	if done := a.pollJob(idA); done.tid("routing-trained").Length() != 1 {
		t.Errorf("first job: %s", done.body)
	}
	if len(store.bundles[orgA]) != 1 || len(store.bundles[orgB]) != 0 {
		t.Fatalf("bundles stored: A %d, B %d", len(store.bundles[orgA]), len(store.bundles[orgB]))
	}
}

func TestConsoleTrainBundleAccess(t *testing.T) {
	store := newRoutingStore()
	f := newConsoleFixture(t, withRouting(store, 0))
	owner := f.visitor()
	org := owner.signup("owner@example.com")
	p := owner.train(evalJSONL(60), true, htmx)
	if p.status != 202 {
		t.Fatalf("owner upload: %d %s", p.status, p.body)
	}
	jobID := p.tid("routing-queued").AttrOr("data-job-id", "")
	owner.pollJob(jobID)
	id := store.bundles[org][0].ID

	for _, role := range []string{"member", "viewer"} {
		t.Run(role, func(t *testing.T) {
			v := consoleInvite(t, f, owner, org, role+"@example.com", role)
			page := v.get("/routing", nil)
			if page.status != 200 || page.tid("routing-train-form").Length() != 0 || page.tid("routing-train-file").Length() != 0 ||
				page.tid("routing-bundles-row-"+id).Length() != 1 {
				t.Fatalf("%s routing page: %d %s", role, page.status, page.body)
			}
			p := v.train(evalJSONL(70), true, htmx)
			if p.status != 403 || p.tid("error-panel").Length() != 1 {
				t.Errorf("%s upload: %d %s", role, p.status, p.body)
			}
			// They see the job, without a cancel button, and cannot cancel it.
			if page.tid("routing-job-"+jobID).Length() != 1 || page.tid("routing-job-cancel-"+jobID).Length() != 0 {
				t.Errorf("%s job list: %s", role, page.body)
			}
			if c := v.post("/routing/jobs/"+jobID+"/cancel", url.Values{}, htmx); c.status != 403 {
				t.Errorf("%s cancel: %d %s", role, c.status, c.body)
			}
		})
	}
	admin := consoleInvite(t, f, owner, org, "admin@example.com", "admin")
	if admin.get("/routing", nil).tid("routing-train-form").Length() != 1 {
		t.Error("an admin sees no training form")
	}
	if p := admin.train(evalJSONL(80), true, htmx); p.status != 202 || p.tid("routing-queued").Length() != 1 {
		t.Errorf("admin upload: %d %s", p.status, p.body)
	} else if done := admin.pollJob(p.tid("routing-queued").AttrOr("data-job-id", "")); done.tid("routing-trained").Length() != 1 {
		t.Errorf("admin's job: %s", done.body)
	}

	// CSRF: no token, or a wrong one in the header, trains nothing.
	if p := owner.train(evalJSONL(90), false, nil); p.status != 403 || p.tid("error-panel").Length() != 1 {
		t.Errorf("upload without CSRF token: %d %s", p.status, p.body)
	}
	if p := owner.train(evalJSONL(90), false, hdr{"HX-Request": "true", web.CSRFHeader: "nope"}); p.status != 403 {
		t.Errorf("upload with a wrong CSRF token: %d", p.status)
	}
	if n := len(store.bundles[org]); n != 2 {
		t.Fatalf("%d bundles stored, want 2 (owner, admin)", n)
	}

	// Another organisation never sees the bundle and cannot select it.
	other := f.visitor()
	otherOrg := other.signup("other@example.com")
	op := other.get("/routing", nil)
	if op.tid("routing-bundles-empty").Length() != 1 || strings.Contains(op.body, id) {
		t.Errorf("other organisation's routing page: %s", op.body)
	}
	if p := other.post("/routing", url.Values{"bundle_id": {id}}, htmx); p.status != 422 || p.tid("field-error-bundle_id").Length() != 1 {
		t.Errorf("other organisation selecting the bundle: %d %s", p.status, p.body)
	}
	p = other.train(evalJSONL(60), true, htmx)
	if p.status != 202 || strings.Contains(p.body, id) || strings.Contains(p.body, jobID) {
		t.Errorf("other organisation's own upload: %d, its page shows the first bundle or job: %s", p.status, p.body)
	}
	if done := other.pollJob(p.tid("routing-queued").AttrOr("data-job-id", "")); strings.Contains(done.body, id) || len(store.bundles[otherOrg]) != 1 {
		t.Errorf("other organisation's trained page shows the first bundle: %s", done.body)
	}
}

package web_test

import (
	"context"
	"gorm.io/gorm"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenancy/tenancytest"
	"github.com/heddle-gw/heddle/web"
)

// consoleNow is the console's clock in these tests.
var consoleNow = time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC)

// consoleFixture is a console and its admin API over in-memory stores.
type consoleFixture struct {
	t        *testing.T
	app      *fiber.App
	accounts *tenancy.Accounts
	reader   *analyticstest.Store
	credits  *credits.Service
	// creditsDB is the database under credits.
	creditsDB *gorm.DB
}

// newConsoleFixture builds the fixture; opts adjust the services and
// settings (e.g. withRouting).
func newConsoleFixture(t *testing.T, opts ...fixtureOpt) *consoleFixture {
	t.Helper()
	d, sf := newDeps(t, tenancytest.NewMemory(), slog.New(slog.DiscardHandler), &fakeTester{})
	for _, o := range opts {
		o(&d)
	}
	d.Training = startJobs(t, d.RoutingBundles)
	f := &consoleFixture{t: t, accounts: d.Accounts, reader: sf.reader, credits: sf.credits, creditsDB: sf.creditsDB}
	api, err := web.NewAPI(d.Services, d.apiConfig())
	if err != nil {
		t.Fatal(err)
	}
	console, err := web.NewConsole(d.Services, web.ConsoleConfig{Logger: d.Logger, CookieSecure: d.CookieSecure,
		MaxBundleBytes: d.MaxBundleBytes, Now: func() time.Time { return consoleNow },
		BaselineModel: "claude-sonnet-4-5", DefaultAlpha: 0.6, Circuits: d.Circuits, RoutePreview: d.RoutePreview})
	if err != nil {
		t.Fatal(err)
	}
	f.app = fiber.New(fiber.Config{DisableStartupMessage: true})
	api.Mount(f.app)
	console.Mount(f.app)
	return f
}

// page is one console response.
type page struct {
	status int
	header http.Header
	body   string
	doc    *goquery.Document
}

// tid returns the elements with data-testid id.
func (p *page) tid(id string) *goquery.Selection { return p.doc.Find(`[data-testid="` + id + `"]`) }

// text is the trimmed text of the element with data-testid id.
func (p *page) text(id string) string { return strings.TrimSpace(p.tid(id).First().Text()) }

// isFullPage reports whether the response is a whole document.
func (p *page) isFullPage() bool {
	return strings.HasPrefix(strings.ToLower(p.body), "<!doctype html>")
}

// visitor is one browser: a cookie jar and the session's CSRF token.
type visitor struct {
	f       *consoleFixture
	cookies map[string]string
}

func (f *consoleFixture) visitor() *visitor { return &visitor{f: f, cookies: map[string]string{}} }

// hdr are extra request headers.
type hdr map[string]string

var htmx = hdr{"HX-Request": "true"}

func (v *visitor) do(method, path string, form url.Values, h hdr) *page {
	v.f.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, val := range v.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: val})
	}
	for k, val := range h {
		req.Header.Set(k, val)
	}
	resp, err := v.f.app.Test(req, -1)
	if err != nil {
		v.f.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	for _, c := range resp.Cookies() {
		if c.MaxAge < 0 || c.Value == "" {
			delete(v.cookies, c.Name)
		} else {
			v.cookies[c.Name] = c.Value
		}
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(raw)))
	if err != nil {
		v.f.t.Fatalf("%s %s: parse HTML: %v", method, path, err)
	}
	return &page{status: resp.StatusCode, header: resp.Header, body: string(raw), doc: doc}
}

func (v *visitor) get(path string, h hdr) *page { return v.do("GET", path, nil, h) }

// post sends a form with the session's CSRF token in the form field.
func (v *visitor) post(path string, form url.Values, h hdr) *page {
	if form == nil {
		form = url.Values{}
	}
	if _, ok := form["csrf_token"]; !ok {
		form.Set("csrf_token", v.cookies[web.CSRFCookie])
	}
	return v.do("POST", path, form, h)
}

// signup signs the visitor up through the console's form and returns the
// organisation id.
func (v *visitor) signup(email string) string {
	v.f.t.Helper()
	v.get("/signup", nil)
	p := v.do("POST", "/signup", url.Values{
		"form_token": {v.cookies[web.FormCookie]}, "email": {email},
		"password": {"correct horse battery staple"}, "org_name": {email + " org"},
	}, nil)
	if p.status != fiber.StatusOK || p.tid("login-notice").Length() != 1 {
		v.f.t.Fatalf("signup: %d %s", p.status, p.body)
	}
	email, _ = p.tid("login-email").Attr("value")
	next, _ := p.doc.Find(`input[name="next"]`).Attr("value")
	p = v.do("POST", "/login", url.Values{
		"form_token": {v.cookies[web.FormCookie]}, "email": {email}, "password": {"correct horse battery staple"}, "next": {next},
	}, nil)
	if p.status != fiber.StatusSeeOther || p.header.Get("Location") != "/dashboard" {
		v.f.t.Fatalf("log-in after signup: %d %s %s", p.status, p.header.Get("Location"), p.body)
	}
	u, err := v.f.accounts.Login(context.Background(), email, "correct horse battery staple")
	if err != nil {
		v.f.t.Fatal(err)
	}
	orgs, err := v.f.accounts.Orgs(context.Background(), u.ID)
	if err != nil || len(orgs) != 1 {
		v.f.t.Fatalf("orgs of %s: %v %v", email, orgs, err)
	}
	return orgs[0].Org.ID
}

// request is an analytics row of org at consoleNow minus ago.
func request(org, id string, ago time.Duration, served, route string, status int, code string, cost, baseline int64) analytics.Request {
	return analytics.Request{
		EventID: "ev-" + id, Time: consoleNow.Add(-ago), RequestID: id, OrgID: org, KeyID: "key-1",
		Format: "openai-chat", RequestedModel: "gpt-5", ServedModel: served, Provider: "openai", RouteKind: route,
		Decision: "cluster 3 picked " + served, Attempts: 1, InputTokens: 100, OutputTokens: 20,
		CostMicros: cost, BaselineMicros: baseline, SavingsMicros: baseline - cost,
		LatencyMs: 120, TTFBMs: 40, Status: status, ErrorCode: code,
	}
}

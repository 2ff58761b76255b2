package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenancy/tenancytest"
	"github.com/heddle-gw/heddle/web"
)

// fakeTester is a CredentialTester that accepts secrets starting with "sk-ok"
// and otherwise fails with a message that quotes the secret (the API must
// scrub it).
type fakeTester struct {
	mu    sync.Mutex
	calls []string // provider|baseURL
}

func (f *fakeTester) Test(_ context.Context, _, provider, baseURL, secret string) error {
	f.mu.Lock()
	f.calls = append(f.calls, provider+"|"+baseURL)
	f.mu.Unlock()
	if strings.HasPrefix(secret, "sk-ok") {
		return nil
	}
	return errors.New("upstream said 401: invalid key " + secret)
}

type fixture struct {
	t      *testing.T
	app    *fiber.App
	store  *tenancytest.Memory
	tester *fakeTester
	logs   *bytes.Buffer
	mu     sync.Mutex
	bodies [][]byte // every response body, for leak checks
}

func withSecureCookies() fixtureOpt                  { return func(d *deps) { d.CookieSecure = true } }
func withLimiter(l *tenancy.LoginLimiter) fixtureOpt { return func(d *deps) { d.Limiter = l } }

func newFixture(t *testing.T, opts ...fixtureOpt) *fixture {
	t.Helper()
	f := &fixture{t: t, store: tenancytest.NewMemory(), tester: &fakeTester{}, logs: &bytes.Buffer{}}
	logger := slog.New(slog.NewJSONHandler(&lockedWriter{w: f.logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	d, _ := newDeps(t, f.store, logger, f.tester)
	for _, o := range opts {
		o(&d)
	}
	d.Training = startJobs(t, d.RoutingBundles)
	api, err := web.NewAPI(d.Services, d.apiConfig())
	if err != nil {
		t.Fatal(err)
	}
	f.app = fiber.New(fiber.Config{DisableStartupMessage: true})
	api.Mount(f.app)
	return f
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// resp is one recorded response.
type resp struct {
	status  int
	header  http.Header
	cookies []*http.Cookie
	body    []byte
}

func (r *resp) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response is not JSON (%d): %s", r.status, r.body)
	}
	return m
}

// errCode returns the error code of an error body.
func (r *resp) errCode(t *testing.T) (code, field string) {
	t.Helper()
	e, ok := r.json(t)["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error object in %s", r.body)
	}
	code, _ = e["code"].(string)
	field, _ = e["field"].(string)
	return code, field
}

func (r *resp) cookie(name string) *http.Cookie {
	for _, c := range r.cookies {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// client is one browser or curl user.
type client struct {
	f       *fixture
	cookies map[string]string
	bearer  string // when set, sent as Authorization and cookies are not sent
	csrf    bool   // send X-CSRF-Token from the csrf cookie
}

func (f *fixture) browser() *client { return &client{f: f, cookies: map[string]string{}, csrf: true} }

func (c *client) do(method, path string, body any) *resp {
	t := c.f.t
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		js, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(js)
	}
	req := httptest.NewRequest(method, path, rd)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.bearer)
	} else {
		for k, v := range c.cookies {
			req.AddCookie(&http.Cookie{Name: k, Value: v})
		}
		if c.csrf && c.cookies[web.CSRFCookie] != "" {
			req.Header.Set(web.CSRFHeader, c.cookies[web.CSRFCookie])
		}
	}
	return c.f.send(req, c)
}

func (f *fixture) send(req *http.Request, c *client) *resp {
	f.t.Helper()
	hr, err := f.app.Test(req, -1)
	if err != nil {
		f.t.Fatal(err)
	}
	defer hr.Body.Close()
	b, _ := io.ReadAll(hr.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, b)
	f.mu.Unlock()
	r := &resp{status: hr.StatusCode, header: hr.Header, cookies: hr.Cookies(), body: b}
	if c != nil {
		for _, ck := range r.cookies {
			if ck.MaxAge < 0 || ck.Value == "" {
				delete(c.cookies, ck.Name)
			} else {
				c.cookies[ck.Name] = ck.Value
			}
		}
	}
	return r
}

func (c *client) mustStatus(r *resp, want int) *resp {
	c.f.t.Helper()
	if r.status != want {
		c.f.t.Fatalf("status %d, want %d: %s", r.status, want, r.body)
	}
	return r
}

// signup signs a new user up and logs them in in the browser client (a
// sign-up starts no session), and returns the log-in body.
func (c *client) signup(email, org string) map[string]any {
	c.f.t.Helper()
	c.mustStatus(c.do("POST", "/api/v1/signup", map[string]string{"email": email, "password": "correct horse battery", "org_name": org}), 202)
	r := c.mustStatus(c.do("POST", "/api/v1/login", map[string]string{"email": email, "password": "correct horse battery"}), 200)
	return r.json(c.f.t)
}

func str(m map[string]any, path ...string) string {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = mm[p]
	}
	s, _ := cur.(string)
	return s
}

// assertNeverSeen fails if any response body or log line contains s.
func (f *fixture) assertNeverSeen(s string) {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.bodies {
		if bytes.Contains(b, []byte(s)) {
			f.t.Fatalf("a response body contains a secret: %s", b)
		}
	}
	if bytes.Contains(f.logs.Bytes(), []byte(s)) {
		f.t.Fatal("the logs contain a secret")
	}
}

// invite has the admin invite email into orgID with role; the invitee
// accepts with a password and is returned as a logged-in browser.
func (f *fixture) invite(admin *client, orgID, email, role string) *client {
	f.t.Helper()
	r := admin.mustStatus(admin.do("POST", "/api/v1/orgs/"+orgID+"/members", map[string]string{"email": email, "role": role}), 201)
	path := str(r.json(f.t), "accept_path")
	c := f.browser()
	c.mustStatus(c.do("POST", path, map[string]string{"password": "invited password"}), 200)
	return c
}

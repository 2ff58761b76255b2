package web_test

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/tenancy/tenancytest"
	"github.com/heddle-gw/heddle/web"
)

// TestServicesAreRequired: every Services field (Budgets' two included) is
// required by both constructors, which name the missing one; nothing is
// left to answer 501.
func TestServicesAreRequired(t *testing.T) {
	full, _ := newDeps(t, tenancytest.NewMemory(), slog.New(slog.DiscardHandler), &fakeTester{})
	if _, err := web.NewAPI(full.Services, web.APIConfig{}); err != nil {
		t.Fatalf("NewAPI with every service: %v", err)
	}
	if _, err := web.NewConsole(full.Services, web.ConsoleConfig{}); err != nil {
		t.Fatalf("NewConsole with every service: %v", err)
	}
	var names []string
	st := reflect.TypeOf(web.Services{})
	for i := range st.NumField() {
		f := st.Field(i)
		if f.Type.Kind() == reflect.Struct {
			for j := range f.Type.NumField() {
				names = append(names, f.Name+"."+f.Type.Field(j).Name)
			}
			continue
		}
		names = append(names, f.Name)
	}
	if len(names) < 17 {
		t.Fatalf("only %d service fields found: %v", len(names), names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			s := full.Services
			v := reflect.ValueOf(&s).Elem()
			for _, part := range strings.Split(name, ".") {
				v = v.FieldByName(part)
			}
			v.Set(reflect.Zero(v.Type()))
			_, apiErr := web.NewAPI(s, web.APIConfig{})
			_, consoleErr := web.NewConsole(s, web.ConsoleConfig{})
			for _, err := range []error{apiErr, consoleErr} {
				if !errors.Is(err, web.ErrMissingService) || !strings.Contains(err.Error(), "Services."+name) {
					t.Fatalf("without %s: %v", name, err)
				}
				if strings.Count(err.Error(), "Services.") != 1 {
					t.Fatalf("without %s, more is named missing: %v", name, err)
				}
			}
		})
	}
}

// TestAdminErrorsOutsideHandlers: what fiber itself refuses under /api/v1
// (a body over the server's BodyLimit, an unknown route) is answered in the
// admin API's JSON shape with a web.* code.
func TestAdminErrorsOutsideHandlers(t *testing.T) {
	d, _ := newDeps(t, tenancytest.NewMemory(), slog.New(slog.DiscardHandler), &fakeTester{})
	api, err := web.NewAPI(d.Services, web.APIConfig{})
	if err != nil {
		t.Fatal(err)
	}
	app := fiber.New(fiber.Config{DisableStartupMessage: true, BodyLimit: 4096, ErrorHandler: api.ErrorHandler})
	api.Mount(app)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	t.Cleanup(func() { app.Shutdown() })
	base := "http://" + ln.Addr().String()
	// Signed in, so the routes' authentication is not what answers.
	signup := (&fixture{t: t, app: app}).browser().signup("owner@example.com", "Acme")
	token := str(signup, "access_token")
	for _, tc := range []struct {
		name, method, path string
		body               string
		status             int
		code               string
	}{
		{"body over BodyLimit", "POST", "/api/v1/login", `{"email":"` + strings.Repeat("a", 5000) + `"}`, 413, "web.body_too_large"},
		{"unknown route", "GET", "/api/v1/no-such-thing", "", 404, "web.no_route"},
		{"unknown method", "DELETE", "/api/v1/login", "", 404, "web.no_route"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, base+tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Error struct{ Code, Message string }
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != tc.status || body.Error.Code != tc.code ||
				body.Error.Message == "" {
				t.Fatalf("%d %+v (%v), want %d %s in the admin shape", resp.StatusCode, body, err, tc.status, tc.code)
			}
			if resp.Header.Get("Cache-Control") != "no-store" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
				t.Fatalf("headers: %v", resp.Header)
			}
		})
	}
}

func TestIsAdminPath(t *testing.T) {
	for path, want := range map[string]bool{
		"/api/v1": true, "/api/v1/": true, "/api/v1/keys": true,
		"/api/v10": false, "/api/v1keys": false, "/v1/chat/completions": false, "/": false, "/login": false,
	} {
		if got := web.IsAdminPath(path); got != want {
			t.Errorf("IsAdminPath(%q) = %v, want %v", path, got, want)
		}
	}
}

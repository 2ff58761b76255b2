package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/gateway/httpapi"
)

// TestReadyzStatusAndBody: /readyz answers the readiness as JSON, 503 only
// when it is "down".
func TestReadyzStatusAndBody(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ready  httpapi.Readiness
		status int
	}{
		{"ok", httpapi.Readiness{Status: httpapi.ReadyOK, Checks: map[string]string{"database": "ok"}}, 200},
		{"degraded", httpapi.Readiness{Status: httpapi.ReadyDegraded, Checks: map[string]string{"database": "ok", "clickhouse": "unavailable"}}, 200},
		{"down", httpapi.Readiness{Status: httpapi.ReadyDown, Checks: map[string]string{"database": "down"}}, 503},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := fiber.New()
			httpapi.New(httpapi.Deps{Logger: slog.New(slog.DiscardHandler),
				Ready: func(context.Context) httpapi.Readiness { return tc.ready }}).Mount(app)
			resp, err := app.Test(httptest.NewRequest("GET", "/readyz", nil))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			var got httpapi.Readiness
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			if resp.StatusCode != tc.status || got.Status != tc.ready.Status || len(got.Checks) != len(tc.ready.Checks) {
				t.Fatalf("got %d %+v, want %d %+v", resp.StatusCode, got, tc.status, tc.ready)
			}
			for k, v := range tc.ready.Checks {
				if got.Checks[k] != v {
					t.Errorf("check %s = %q, want %q", k, got.Checks[k], v)
				}
			}
		})
	}
}

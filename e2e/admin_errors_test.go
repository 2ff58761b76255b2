package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestAdminAPIErrorShape: a body over the server's HEDDLE_MAX_BODY_BYTES is
// refused before any handler runs; under /api/v1 the answer is still the
// admin API's JSON error (web.body_too_large), while the data plane answers
// in its own wire format.
func TestAdminAPIErrorShape(t *testing.T) {
	in := startHeddle(t, map[string]string{"HEDDLE_MAX_BODY_BYTES": "4096"})
	big := `{"email":"` + strings.Repeat("a", 8000) + `@example.com","password":"correct horse battery"}`
	for _, tc := range []struct {
		path      string
		wantAdmin bool
	}{{"/api/v1/login", true}, {"/v1/chat/completions", false}} {
		resp, err := http.Post(in.URL+tc.path, "application/json", strings.NewReader(big))
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 413 {
			t.Fatalf("%s: %d, %v", tc.path, resp.StatusCode, err)
		}
		isAdmin := body.Error.Code == "web.body_too_large" && resp.Header.Get("x-heddle-error") == ""
		if isAdmin != tc.wantAdmin {
			t.Fatalf("%s: code %q, x-heddle-error %q; admin shape %v, want %v", tc.path, body.Error.Code,
				resp.Header.Get("x-heddle-error"), isAdmin, tc.wantAdmin)
		}
	}
}

package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// apiClient calls the admin JSON API with a Bearer session token.
type apiClient struct {
	t      testing.TB
	base   string
	token  string
	bodies []string // every response body seen, for secret searches
}

func (a *apiClient) do(method, path string, in any, wantStatus int, out any) {
	a.t.Helper()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			a.t.Fatal(err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.base+path, body)
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a.bodies = append(a.bodies, string(raw))
	if resp.StatusCode != wantStatus {
		a.t.Fatalf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, wantStatus, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			a.t.Fatalf("%s %s: decode %s: %v", method, path, raw, err)
		}
	}
}

// tenant is an organisation set up through the API as the README says.
type tenant struct {
	api   *apiClient
	OrgID string
	Key   string // rk_ key
	KeyID string
}

// signUp creates a user and organisation, an inference key, and (when
// provider is non-empty) a credential for provider pointing at baseURL.
func signUp(t testing.TB, heddleURL, email, provider, secret, baseURL string) *tenant {
	t.Helper()
	api := &apiClient{t: t, base: heddleURL}
	var s struct {
		AccessToken string `json:"access_token"`
		Org         struct {
			ID string `json:"id"`
		} `json:"org"`
	}
	api.do("POST", "/api/v1/signup", map[string]string{"email": email, "password": "correct horse battery staple", "org_name": email}, 202, nil)
	api.do("POST", "/api/v1/login", map[string]string{"email": email, "password": "correct horse battery staple"}, 200, &s)
	if s.AccessToken == "" || s.Org.ID == "" {
		t.Fatalf("log-in after signup returned no token or org: %+v", s)
	}
	api.token = s.AccessToken
	var k struct {
		Key struct {
			ID string `json:"id"`
		} `json:"key"`
		Secret string `json:"secret"`
	}
	api.do("POST", "/api/v1/keys", map[string]any{"name": "dev", "scopes": []string{"inference", "route"}}, 201, &k)
	tn := &tenant{api: api, OrgID: s.Org.ID, Key: k.Secret, KeyID: k.Key.ID}
	if provider != "" {
		api.do("POST", "/api/v1/credentials", map[string]any{
			"provider": provider, "label": "fake", "secret": secret, "base_url": baseURL,
		}, 201, nil)
	}
	return tn
}

// io_copy reads a response body into b.
func io_copy(b *strings.Builder, resp *http.Response) (int64, error) { return io.Copy(b, resp.Body) }

package app

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/heddle-gw/heddle/dispatch/provider/openaicompat"
	"github.com/heddle-gw/heddle/internal/netpolicy"
)

// TestLoadCatalogAddressPolicy: an operator override naming a refused
// address fails startup unless private upstreams are allowed; a
// non-canonical literal fails it either way.
func TestLoadCatalogAddressPolicy(t *testing.T) {
	tests := []struct {
		base                string
		strictOK, allowedOK bool
	}{
		{"https://llm.example.com/v1", true, true},
		{"https://8.8.8.8/v1", true, true},
		{"http://10.0.0.5/v1", false, true},
		{"https://[fec0::1]/v1", false, true},
		{"https://198.18.0.1/v1", false, true},
		{"https://localhost:8000/v1", false, true},
		{"https://0x7f000001/v1", false, false},
		{"https://2130706433/v1", false, false},
		{"https://127.1/v1", false, false},
	}
	for _, tc := range tests {
		path := filepath.Join(t.TempDir(), "catalog.json")
		body := `{"version":"t","providers":[{"name":"local","format":"openai_chat","base_url":"` + tc.base + `","compatible":true}],"models":[]}`
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, allow := range []bool{false, true} {
			want := tc.strictOK
			if allow {
				want = tc.allowedOK
			}
			cat, err := loadCatalog(Config{CatalogFile: path, AllowPrivate: allow})
			if (err == nil) != want {
				t.Errorf("%s (allow private %v): err %v, want ok=%v", tc.base, allow, err, want)
			}
			if err != nil && !errors.Is(err, netpolicy.ErrRefused) {
				t.Errorf("%s: err %v, not the address policy's", tc.base, err)
			}
			if err == nil {
				if p, perr := cat.Provider("local"); perr != nil || p.BaseURL != tc.base {
					t.Errorf("%s: provider %+v, %v", tc.base, p, perr)
				}
			}
		}
	}
}

// TestProviderClientRedirects: the client app gives every provider adapter
// follows no redirect to a refused address, and refuses loopback at dial
// time, unless private upstreams are allowed.
func TestProviderClientRedirects(t *testing.T) {
	var hits atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(target.Close)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/moved", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(upstream.Close)

	strict := providerClient(false)
	if _, err := strict.Get(upstream.URL); !errors.Is(err, openaicompat.ErrBlockedAddress) {
		t.Errorf("strict client dialed loopback: %v", err)
	}
	// The redirect check alone, on the strict client's own CheckRedirect.
	req, _ := http.NewRequest(http.MethodGet, target.URL+"/moved", nil)
	if err := strict.CheckRedirect(req, make([]*http.Request, 1)); !errors.Is(err, openaicompat.ErrBlockedAddress) {
		t.Errorf("strict client follows a redirect to %s: %v", target.URL, err)
	}
	if hits.Load() != 0 {
		t.Fatalf("the redirect target got %d requests", hits.Load())
	}

	lax := providerClient(true)
	resp, err := lax.Get(upstream.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if hits.Load() != 1 || !strings.HasSuffix(resp.Request.URL.Path, "/moved") {
		t.Fatalf("with private upstreams allowed the redirect is followed: hits %d, final %s", hits.Load(), resp.Request.URL)
	}
}

// Package gemini is the dispatch adapter for the Gemini API: it sends prepared
// generateContent bodies to {base}/v1beta/models/{upstream}:generateContent
// (or :streamGenerateContent?alt=sse) with x-goog-api-key. The model travels
// in the URL, built from Call.Target.Upstream, which the target guard checks.
//
// Ring: adapter. Outbound HTTP only, through the *http.Client it is given;
// only dispatch and app import it.
package gemini

import (
	"context"
	"net/http"
	"net/url"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/provider/internal/upstream"
)

// DefaultBaseURL is the Gemini API root.
const DefaultBaseURL = "https://generativelanguage.googleapis.com"

// Config configures the adapter.
type Config struct {
	// Name is the provider name in errors (default "google").
	Name string
	// BaseURL is the API root when the target has none (default
	// DefaultBaseURL).
	BaseURL string
}

// Client sends Gemini generateContent calls.
type Client struct {
	cfg Config
	hc  *http.Client
}

var _ dispatch.Provider = (*Client)(nil)

// New returns a client; a nil hc means http.DefaultClient.
func New(cfg Config, hc *http.Client) *Client {
	if cfg.Name == "" {
		cfg.Name = "google"
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{cfg: cfg, hc: hc}
}

// URL returns the endpoint of model under base for a streaming or whole call.
func URL(base, model string, stream bool) string {
	u := base + "/v1beta/models/" + url.PathEscape(model)
	if stream {
		return u + ":streamGenerateContent?alt=sse"
	}
	return u + ":generateContent"
}

// Send posts call.Body to the model's endpoint. The key goes in a header,
// never in the URL.
func (c *Client) Send(ctx context.Context, call *dispatch.Call) (*dispatch.Reply, error) {
	base := upstream.BaseURL(call.Credential.BaseURL, call.Target.BaseURL, c.cfg.BaseURL, DefaultBaseURL)
	h := upstream.JSONHeader(call.Stream, "X-Goog-Api-Key", call.Credential.Secret)
	return upstream.Post(ctx, c.hc, c.cfg.Name, URL(base, call.Target.Upstream, call.Stream), h, call.Body)
}

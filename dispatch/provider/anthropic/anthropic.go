// Package anthropic is the dispatch adapter for the Anthropic Messages API:
// it sends prepared Messages bodies to {base}/v1/messages with the
// organisation's key.
//
// Ring: adapter. Outbound HTTP only, through the *http.Client it is given;
// only dispatch and app import it.
package anthropic

import (
	"context"
	"net/http"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/provider/internal/upstream"
)

// DefaultBaseURL is Anthropic's API root.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultVersion is the anthropic-version sent when the caller sent none.
const DefaultVersion = "2023-06-01"

// Config configures the adapter.
type Config struct {
	// Name is the provider name in errors (default "anthropic").
	Name string
	// BaseURL is the API root when the target has none (default
	// DefaultBaseURL).
	BaseURL string
	// Version is the default anthropic-version header (default DefaultVersion).
	Version string
}

// Client sends Anthropic Messages calls.
type Client struct {
	cfg Config
	hc  *http.Client
}

var _ dispatch.Provider = (*Client)(nil)

// New returns a client; a nil hc means http.DefaultClient.
func New(cfg Config, hc *http.Client) *Client {
	if cfg.Name == "" {
		cfg.Name = "anthropic"
	}
	if cfg.Version == "" {
		cfg.Version = DefaultVersion
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{cfg: cfg, hc: hc}
}

// Send posts call.Body to {base}/v1/messages. The caller's anthropic-version
// and anthropic-beta headers pass through when present. The base URL is the
// credential's when the tenant set one (the composition root guards the
// dialer against internal addresses), else the catalog's, else the
// configured one.
func (c *Client) Send(ctx context.Context, call *dispatch.Call) (*dispatch.Reply, error) {
	base := upstream.BaseURL(call.Credential.BaseURL, call.Target.BaseURL, c.cfg.BaseURL, DefaultBaseURL)
	path := "/v1/messages"
	if call.Endpoint == dispatch.EndpointCountTokens {
		path = "/v1/messages/count_tokens"
	}
	return upstream.Post(ctx, c.hc, c.cfg.Name, base+path, c.header(call), call.Body)
}

func (c *Client) header(call *dispatch.Call) http.Header {
	version := c.cfg.Version
	if v := call.Header.Get("Anthropic-Version"); v != "" {
		version = v
	}
	h := upstream.JSONHeader(call.Stream, "X-Api-Key", call.Credential.Secret, "Anthropic-Version", version)
	for _, b := range call.Header.Values("Anthropic-Beta") {
		h.Add("Anthropic-Beta", b)
	}
	return h
}

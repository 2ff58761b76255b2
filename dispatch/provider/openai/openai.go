// Package openai is the dispatch adapter for OpenAI's API: Chat Completions
// ({base}/chat/completions) and Responses ({base}/responses), chosen by the
// target's wire format, with a bearer key.
//
// Ring: adapter. Outbound HTTP only, through the *http.Client it is given;
// only dispatch and app import it.
package openai

import (
	"context"
	"fmt"
	"net/http"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/provider/internal/upstream"
	"github.com/heddle-gw/heddle/llm"
)

// DefaultBaseURL is OpenAI's API root.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures the adapter.
type Config struct {
	// Name is the provider name in errors (default "openai").
	Name string
	// BaseURL is the API root when the target has none (default
	// DefaultBaseURL).
	BaseURL string
	// Organization, when set, is sent as OpenAI-Organization.
	Organization string
}

// Client sends OpenAI Chat Completions and Responses calls.
type Client struct {
	cfg Config
	hc  *http.Client
}

var _ dispatch.Provider = (*Client)(nil)

// New returns a client; a nil hc means http.DefaultClient.
func New(cfg Config, hc *http.Client) *Client {
	if cfg.Name == "" {
		cfg.Name = "openai"
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{cfg: cfg, hc: hc}
}

// Path returns the endpoint path of a wire format, or an error for a format
// this API does not speak.
func Path(f llm.Format) (string, error) {
	switch f {
	case llm.FormatChat:
		return "/chat/completions", nil
	case llm.FormatResponses:
		return "/responses", nil
	}
	return "", fmt.Errorf("openai: format %q is not served", f)
}

// Send posts call.Body to the endpoint of call.Target.Format, under the
// credential's base URL when the tenant set one (an Azure or enterprise
// proxy; the composition root guards the dialer against internal
// addresses), else the catalog's, else the configured one.
func (c *Client) Send(ctx context.Context, call *dispatch.Call) (*dispatch.Reply, error) {
	path, err := Path(call.Target.Format)
	if err != nil {
		return nil, err
	}
	if call.Endpoint == dispatch.EndpointEmbeddings {
		path = "/embeddings"
	}
	base := upstream.BaseURL(call.Credential.BaseURL, call.Target.BaseURL, c.cfg.BaseURL, DefaultBaseURL)
	kv := []string{"Authorization", "Bearer " + call.Credential.Secret, "OpenAI-Organization", c.cfg.Organization}
	if c.cfg.Organization == "" {
		kv = kv[:2]
	}
	h := upstream.JSONHeader(call.Stream, kv...)
	return upstream.Post(ctx, c.hc, c.cfg.Name, base+path, h, call.Body)
}

// Package openaicompat is the dispatch adapter for OpenAI-compatible Chat
// Completions APIs: openrouter, deepseek and tenant-defined base URLs. Because
// tenants choose the base URL, every connection is checked at dial time, on
// the resolved IP, and refused when it points at a loopback, private,
// link-local or otherwise non-public address, unless the operator allows it.
//
// Ring: adapter. Outbound HTTP only; only dispatch and app import it.
package openaicompat

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/provider/internal/upstream"
)

// Errors.
var (
	// ErrBlockedAddress: the destination resolved to an address that is not
	// allowed (loopback, private, link-local, ...).
	ErrBlockedAddress = errors.New("openaicompat: destination address not allowed")
	// ErrNoBaseURL: neither the credential, the target nor the config names an
	// API root for the provider.
	ErrNoBaseURL = errors.New("openaicompat: no base URL")
	// ErrBadBaseURL: the base URL is not an absolute http(s) URL.
	ErrBadBaseURL = errors.New("openaicompat: bad base URL")
)

// DefaultBaseURLs are the API roots of the built-in compatible providers.
var DefaultBaseURLs = map[string]string{
	"openrouter": "https://openrouter.ai/api/v1",
	"deepseek":   "https://api.deepseek.com/v1",
}

// Config configures the adapter.
type Config struct {
	// BaseURLs adds or overrides API roots per provider name (on top of
	// DefaultBaseURLs).
	BaseURLs map[string]string
	// AllowPrivate lets calls reach loopback, private and link-local
	// addresses (an operator option, e.g. for a self-hosted model; tests).
	AllowPrivate bool
	// Header is sent with every call (e.g. OpenRouter's HTTP-Referer, X-Title).
	Header http.Header
}

// Client sends Chat Completions calls to OpenAI-compatible APIs. One client
// serves every provider name it has a base URL for.
type Client struct {
	cfg  Config
	hc   *http.Client
	base map[string]string
}

var _ dispatch.Provider = (*Client)(nil)

// New returns a client. Unless cfg.AllowPrivate, the client's transport is a
// clone of hc's *http.Transport (or of http.DefaultTransport when hc or its
// transport is nil, or is not an *http.Transport) with the address check
// installed in its dialer, proxies disabled (a proxy would hide the
// destination from the check) and no redirect followed to a refused host
// (GuardedClient).
func New(cfg Config, hc *http.Client) *Client {
	base := make(map[string]string, len(DefaultBaseURLs)+len(cfg.BaseURLs))
	for k, v := range DefaultBaseURLs {
		base[k] = v
	}
	for k, v := range cfg.BaseURLs {
		base[k] = v
	}
	if hc == nil {
		hc = &http.Client{}
	}
	if !cfg.AllowPrivate {
		hc = GuardedClient(hc)
	}
	return &Client{cfg: cfg, hc: hc, base: base}
}

// Send posts call.Body to {base}/chat/completions, base being the credential's
// base URL, else the target's, else the configured one for the provider name.
func (c *Client) Send(ctx context.Context, call *dispatch.Call) (*dispatch.Reply, error) {
	name := call.Target.Provider
	base := upstream.BaseURL(call.Credential.BaseURL, call.Target.BaseURL, c.base[name])
	if base == "" {
		return nil, fmt.Errorf("%w for provider %q", ErrNoBaseURL, name)
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%w for provider %q", ErrBadBaseURL, name)
	}
	if !c.cfg.AllowPrivate {
		if err := checkHost(u.Hostname()); err != nil {
			return nil, err
		}
	}
	h := upstream.JSONHeader(call.Stream)
	for k, v := range c.cfg.Header {
		h[k] = append([]string(nil), v...)
	}
	h.Set("Authorization", "Bearer "+call.Credential.Secret)
	path := "/chat/completions"
	if call.Endpoint == dispatch.EndpointEmbeddings {
		path = "/embeddings"
	}
	return upstream.Post(ctx, c.hc, name, base+path, h, call.Body)
}

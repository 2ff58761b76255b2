package app

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/provider/anthropic"
	"github.com/heddle-gw/heddle/dispatch/provider/gemini"
	"github.com/heddle-gw/heddle/dispatch/provider/openai"
	"github.com/heddle-gw/heddle/dispatch/provider/openaicompat"
	"github.com/heddle-gw/heddle/internal/netpolicy"
	"github.com/heddle-gw/heddle/llm"
)

// providerClient is the HTTP client every provider adapter shares:
// upstreamClient over transport (HEDDLE_UPSTREAM_TRANSPORT), unless the operator allows private upstreams guarded by
// the address policy on every dialed address and redirect target.
func providerClient(allowPrivate bool, transport string) *http.Client {
	hc := upstreamClient(transport)
	if !allowPrivate {
		hc = openaicompat.GuardedClient(hc)
	}
	return hc
}

// providers builds one adapter per catalog provider, keyed by name.
func providers(cat *catalog.Catalog, hc *http.Client, allowPrivate bool) map[string]dispatch.Provider {
	out := map[string]dispatch.Provider{}
	compat := openaicompat.Config{BaseURLs: map[string]string{}, AllowPrivate: allowPrivate}
	var compatNames []string
	for _, p := range cat.Providers() {
		switch {
		case p.Compatible:
			compat.BaseURLs[p.Name] = p.BaseURL
			compatNames = append(compatNames, p.Name)
		case p.Format == llm.FormatAnthropic:
			out[p.Name] = anthropic.New(anthropic.Config{Name: p.Name, BaseURL: p.BaseURL}, hc)
		case p.Format == llm.FormatGemini:
			out[p.Name] = gemini.New(gemini.Config{Name: p.Name, BaseURL: p.BaseURL}, hc)
		case p.Format == llm.FormatChat || p.Format == llm.FormatResponses:
			out[p.Name] = openai.New(openai.Config{Name: p.Name, BaseURL: p.BaseURL}, hc)
		}
	}
	if len(compatNames) > 0 {
		client := openaicompat.New(compat, hc)
		for _, n := range compatNames {
			out[n] = client
		}
	}
	return out
}

// checkCatalogURLs applies the address policy to every provider base URL of
// the catalog (the operator's override file can add or replace them): a
// non-canonical IP literal is always refused, a loopback, private or
// reserved one unless private upstreams are allowed. The dialer checks names
// on every call; this fails startup on a literal instead.
func checkCatalogURLs(cat *catalog.Catalog, allowPrivate bool) error {
	var errs []error
	for _, p := range cat.Providers() {
		if p.BaseURL == "" {
			continue
		}
		u, err := url.Parse(p.BaseURL)
		if err != nil || u.Host == "" {
			errs = append(errs, fmt.Errorf("provider %q: base_url is not an absolute URL", p.Name))
			continue
		}
		if err := netpolicy.Host(u.Hostname(), allowPrivate); err != nil {
			errs = append(errs, fmt.Errorf("provider %q: base_url: %w", p.Name, err))
		}
	}
	return errors.Join(errs...)
}

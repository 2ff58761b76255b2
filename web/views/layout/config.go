// Package layout is the console's page shell: head (stylesheet, vendored
// htmx, its CSP-safe configuration), navigation and the main slot.
//
// Ring: presentation. No I/O.
package layout

import "encoding/json"

// Props describe the shell around one page.
type Props struct {
	Title  string
	Nonce  string // the response's CSP nonce
	CSRF   string // the session's CSRF token; "" on anonymous pages
	Email  string // the signed-in user; "" on anonymous pages
	Org    string // the current organisation's name
	Active string // the nav entry to highlight: dashboard, requests, keys, credentials, routing, reports
	// Operator shows the platform operator's pages in the navigation.
	Operator bool
}

// htmxConfig is htmx's configuration for a CSP without 'unsafe-eval' or
// inline styles: no eval, no indicator style element, and form errors
// (422) are swapped like successes so invalid forms re-render in place.
func htmxConfig(nonce string) string {
	type rule struct {
		Code  string `json:"code"`
		Swap  bool   `json:"swap"`
		Error bool   `json:"error,omitempty"`
	}
	b, _ := json.Marshal(map[string]any{
		"allowEval":              false,
		"allowScriptTags":        false,
		"includeIndicatorStyles": false,
		"inlineScriptNonce":      nonce,
		"inlineStyleNonce":       nonce,
		"selfRequestsOnly":       true,
		"historyCacheSize":       0,
		"responseHandling": []rule{
			{Code: "204", Swap: false},
			{Code: "[23]..", Swap: true},
			{Code: "422", Swap: true},
			{Code: "[45]..", Swap: true, Error: true},
			{Code: "...", Swap: false},
		},
	})
	return string(b)
}

// csrfHeaders is the hx-headers value that makes every htmx request carry
// the CSRF token.
func csrfHeaders(token string) string {
	b, _ := json.Marshal(map[string]string{"X-CSRF-Token": token})
	return string(b)
}

func navClass(active, entry string) string {
	if active == entry {
		return "active"
	}
	return ""
}

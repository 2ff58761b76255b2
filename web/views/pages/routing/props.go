// Package routing holds the console's organisation routing settings page:
// the quality/cost dial, the allow and deny lists, model aliases, the cache
// bypass and the active bundle.
//
// Ring: presentation. No I/O.
package routing

import "github.com/heddle-gw/heddle/web/views/layout"

// Bundle is one of the organisation's trained bundles offered by the form.
type Bundle struct {
	ID    string
	Label string // e.g. "b-123 (3 models, 120 samples)"
}

// FormProps is the settings form with the values as typed and their errors.
type FormProps struct {
	CSRF        string
	Alpha       string // "" means the deployment default
	Allow       string // one model id per line
	Deny        string
	Aliases     string // one "requested-name = target" per line
	CacheBypass bool
	BundleID    string // "" means the default bundle
	Bundles     []Bundle
	CanEdit     bool // admins and owners
	Updated     string
	Saved       bool
	Error       string
	Fields      map[string]string
}

// PageProps is the whole routing page.
type PageProps struct {
	Layout layout.Props
	Form   FormProps
}

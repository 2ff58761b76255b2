// Package routing holds the console's organisation routing settings page:
// the quality/cost dial, the allow and deny lists, model aliases, the cache
// bypass and the active bundle; the organisation's trained bundles and the
// form that trains one from uploaded evaluation data.
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
	CSRF  string
	Alpha string // "" means the deployment default
	// DefaultAlpha is the deployment's default dial, the effective one
	// while Alpha is empty.
	DefaultAlpha string
	Allow        string // one model id per line
	Deny         string
	Aliases      string // one "requested-name = target" per line
	CacheBypass  bool
	BundleID     string // "" means the default bundle
	Bundles      []Bundle
	CanEdit      bool // admins and owners
	Updated      string
	Saved        bool
	Error        string
	Fields       map[string]string
}

// BundleRow is one trained bundle in the bundles table.
type BundleRow struct {
	ID       string
	Models   string // comma separated
	Samples  int
	K        int
	Created  string
	DataHash string // a prefix of the training data's hash
	Active   bool
}

// TrainProps is the "Train a bundle" form.
type TrainProps struct {
	CSRF       string
	MaxBytes   string // e.g. "10 MB"
	MinSamples int
	MaxSamples int
	Trained    string // the success message, "" when nothing was trained
	TrainedID  string
	Queued     string // the message after an upload was queued
	QueuedID   string // its job id
	Error      string // what is wrong with the upload, naming the line or field
}

// JobRow is one of the organisation's training jobs. An active (queued or
// running) row polls its own status.
type JobRow struct {
	ID      string
	Status  string // queued, running, done, failed, cancelled
	Stage   string
	Percent int
	Samples int
	Created string
	// Detail is the outcome: the bundle trained, or why it failed.
	Detail    string
	Active    bool
	CanCancel bool // admins and owners, while Active
	CSRF      string
}

// ContentProps is the page's main area: the settings form, the bundles and
// (for admins and owners) the training form. htmx swaps it whole after a
// save or an upload, so the bundle list and the active marker stay current.
type ContentProps struct {
	Form    FormProps
	Try     TryProps
	Bundles []BundleRow
	Train   TrainProps
	Jobs    []JobRow // latest first
	CanEdit bool
}

// PageProps is the whole routing page.
type PageProps struct {
	Layout  layout.Props
	Content ContentProps
}

// Effective is the dial routed requests use and where it comes from
// (a key's own dial still wins for that key).
func (p FormProps) Effective() string {
	if p.Alpha != "" {
		return p.Alpha + " (this organisation's)"
	}
	return p.DefaultAlpha + " (the deployment default)"
}

// TryProps is the "try a prompt" form and the router's answer for it.
type TryProps struct {
	CSRF   string
	Model  string // as typed; "" means auto
	Prompt string
	Error  string
	// Answer is the decision, nil before a try.
	Answer *TryAnswer
}

// TryAnswer is the router's decision for a tried prompt.
type TryAnswer struct {
	Requested string
	Model     string
	Route     string
	Policy    string
	Baseline  string
	Decision  string // alpha, bundle and the like; "" for an explicit model
	Targets   []string
	Scores    [][2]string // model, score; best first
}

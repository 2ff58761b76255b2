// Package credentials holds the console's BYOK credential pages: the list
// (provider, label, last four characters, dates; never the secret), the add
// form, the per-credential test and rotate actions, and deletion.
//
// Ring: presentation. No I/O.
package credentials

import "github.com/heddle-gw/heddle/web/views/layout"

// Row is one credential in the list.
type Row struct {
	ID       string
	Provider string
	Label    string
	BaseURL  string
	LastFour string
	Created  string
	Rotated  string
	// CanManage shows the test, rotate and delete controls.
	CanManage bool
	// Test is the outcome of the last test of this credential, if any.
	Test *TestResult
	// RotateError is why the last rotation was refused (the rotate form then
	// stays open); Rotated says it succeeded.
	RotateError string
	JustRotated bool
}

// TestResult is the outcome of testing a credential against its provider.
type TestResult struct {
	OK      bool
	Message string // why it failed; "" when OK
}

// FormProps is the add form with the values and errors of a failed
// submission. The secret is never echoed back.
type FormProps struct {
	CSRF     string
	Provider string
	Label    string
	BaseURL  string
	Error    string
	Fields   map[string]string
}

// PageProps is the whole credentials page.
type PageProps struct {
	Layout layout.Props
	Rows   []Row
	Form   FormProps
	Error  string
}

// Providers are the suggestions of the provider field.
var Providers = []string{"anthropic", "openai", "google", "openrouter", "deepseek"}

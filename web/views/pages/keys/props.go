// Package keys holds the console's rk_ key pages: the list, the create form
// (whose response shows the new key once), the edit form of a key's limits
// and routing policy (swapped in place of its row) and revocation.
//
// Ring: presentation. No I/O.
package keys

import (
	"strconv"
	"strings"

	"github.com/heddle-gw/heddle/web/views/components"
	"github.com/heddle-gw/heddle/web/views/layout"
)

// Row is one key in the list (never its secret or hash).
type Row struct {
	ID       string
	Prefix   string
	Name     string
	Scopes   []string
	Policy   string
	Alpha    *float64
	RPM      int
	TPM      int
	Daily    int64 // micro-dollars
	Monthly  int64 // micro-dollars
	Soft     bool  // the budgets alert only
	LastUsed string
	Created  string
	Tags     []string
	Expires  string // "never" or the time
	// Spend is the key's spend this UTC month, when SpendKnown.
	Spend      int64
	SpendKnown bool
	Status     string // active, expired, revoked
	// CanEdit shows the edit button: the viewer may change this key.
	CanEdit bool
	// CanReinstate shows the reinstate button of a suspended key (admins
	// and owners).
	CanReinstate bool
	// Saved marks the row just saved through its edit form.
	Saved bool
	// Edit, when set, shows the row as its edit form (the page's answer
	// without htmx).
	Edit *EditProps
}

// Limits renders the key's limits and budgets, "none" when it has none.
func (r Row) Limits() string {
	var parts []string
	if r.RPM > 0 {
		parts = append(parts, strconv.Itoa(r.RPM)+" rpm")
	}
	if r.TPM > 0 {
		parts = append(parts, strconv.Itoa(r.TPM)+" tpm")
	}
	if r.Daily > 0 {
		parts = append(parts, components.USD(r.Daily)+"/day")
	}
	if r.Monthly > 0 {
		parts = append(parts, components.USD(r.Monthly)+"/month")
	}
	if r.Soft && (r.Daily > 0 || r.Monthly > 0) {
		parts[len(parts)-1] += " (alert only)"
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// PolicyText is the routing policy with the key's dial when it has one.
func (r Row) PolicyText() string {
	if r.Alpha == nil {
		return r.Policy
	}
	return r.Policy + " (dial " + strconv.FormatFloat(*r.Alpha, 'f', 2, 64) + ")"
}

// FormProps is the create-key form with the values and errors of a failed
// submission.
type FormProps struct {
	CSRF    string
	Name    string
	Scopes  map[string]bool
	Policy  string
	RPM     string
	TPM     string
	Daily   string // dollars as typed
	Monthly string
	Tags    string // comma-separated, as typed
	Expires string // YYYY-MM-DD (UTC end of day), as typed
	Error   string
	Fields  map[string]string
}

// EditProps is the edit form of one key's limits and routing policy, with
// the values as typed and the errors of a failed save.
type EditProps struct {
	ID      string
	Prefix  string
	Name    string
	CSRF    string
	Policy  string
	Alpha   string // "" means the organisation's dial
	RPM     string
	TPM     string
	Daily   string // dollars as typed
	Monthly string
	Mode    string // budget mode: "hard" or "soft"
	Tags    string // comma-separated, as typed
	Error   string
	Fields  map[string]string
}

// CreatedProps is the response to a successful create: the secret (shown
// this once), a fresh form and the updated list.
type CreatedProps struct {
	Secret string
	Key    Row
	Form   FormProps
	Rows   []Row
	CSRF   string
}

// PageProps is the whole keys page.
type PageProps struct {
	Layout  layout.Props
	Rows    []Row
	Form    FormProps
	Created *CreatedProps // set when the page answers a non-htmx create
	Error   string
}

// editFields are the edit form's fields, in the order their errors show.
var editFields = []string{"policy", "alpha", "rpm", "tpm", "daily_budget", "monthly_budget", "budget_mode", "tags"}

// AllScopes are the scopes offered by the form.
var AllScopes = []string{"inference", "route", "analytics:read"}

func statusClass(s string) string {
	if s == "active" {
		return "pill good"
	}
	return "pill bad"
}

// SpendText is the month's spend, "-" when it could not be read.
func (r Row) SpendText() string {
	if !r.SpendKnown {
		return "-"
	}
	return components.USD(r.Spend)
}

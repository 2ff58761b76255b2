package web

import (
	"time"

	"github.com/heddle-gw/heddle/tenancy"
)

// The views below are the API's JSON shapes. They never carry password
// hashes, key hashes, ciphertext or credential plaintext.

type userView struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	CreatedAt time.Time `json:"created_at"`
}

func viewUser(u *tenancy.User) userView {
	return userView{ID: u.ID, Email: u.Email, CreatedAt: u.CreatedAt}
}

type orgView struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Slug      string    `json:"slug"`
	CreatedAt time.Time `json:"created_at"`
	Role      string    `json:"role,omitempty"`
	Current   bool      `json:"current,omitempty"`
	// RemovedMemberKeys is "revoke" or "suspend": what removing a member
	// does to the keys they created.
	RemovedMemberKeys string `json:"removed_member_keys"`
}

func viewOrg(o *tenancy.Org, role tenancy.Role) orgView {
	removed := o.RemovedMemberKeys
	if removed == "" {
		removed = tenancy.KeysRevoke
	}
	return orgView{ID: o.ID, Name: o.Name, Slug: o.Slug, CreatedAt: o.CreatedAt, Role: string(role), RemovedMemberKeys: string(removed)}
}

type memberView struct {
	UserID   string    `json:"user_id"`
	Email    string    `json:"email"`
	Role     string    `json:"role"`
	JoinedAt time.Time `json:"joined_at"`
}

type invitationView struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Role      string    `json:"role"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

func viewInvitation(i *tenancy.Invitation) invitationView {
	return invitationView{ID: i.ID, Email: i.Email, Role: string(i.Role), CreatedAt: i.CreatedAt, ExpiresAt: i.ExpiresAt}
}

type keyView struct {
	ID                  string     `json:"id"`
	Name                string     `json:"name"`
	Prefix              string     `json:"prefix"`
	Status              string     `json:"status"` // active, expired, suspended or revoked
	Scopes              []string   `json:"scopes"`
	Policy              string     `json:"policy"`
	Alpha               *float64   `json:"alpha"`
	RPM                 int        `json:"rpm"`
	TPM                 int        `json:"tpm"`
	DailyBudgetMicros   int64      `json:"daily_budget_micros"`
	MonthlyBudgetMicros int64      `json:"monthly_budget_micros"`
	BudgetMode          string     `json:"budget_mode"` // hard or soft
	Tags                []string   `json:"tags"`
	ExpiresAt           *time.Time `json:"expires_at"`
	RevokedAt           *time.Time `json:"revoked_at"`
	SuspendedAt         *time.Time `json:"suspended_at"`
	LastUsedAt          *time.Time `json:"last_used_at"`
	CreatedAt           time.Time  `json:"created_at"`
	CreatedBy           string     `json:"created_by,omitempty"`
}

func viewKey(k *tenancy.Key, now time.Time) keyView {
	status := "active"
	switch {
	case k.RevokedAt != nil:
		status = "revoked"
	case k.SuspendedAt != nil:
		status = "suspended"
	case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
		status = "expired"
	}
	scopes := make([]string, len(k.Scopes))
	for i, s := range k.Scopes {
		scopes[i] = string(s)
	}
	tags := k.Tags
	if tags == nil {
		tags = []string{}
	}
	mode := "hard"
	if k.Limits.SoftBudgets {
		mode = "soft"
	}
	return keyView{
		BudgetMode: mode, ID: k.ID, Name: k.Name, Prefix: k.Prefix, Status: status, Scopes: scopes, Policy: string(k.Policy), Alpha: k.Alpha,
		RPM: k.Limits.RPM, TPM: k.Limits.TPM, DailyBudgetMicros: k.Limits.DailyBudgetMicros,
		MonthlyBudgetMicros: k.Limits.MonthlyBudgetMicros, ExpiresAt: k.ExpiresAt, RevokedAt: k.RevokedAt, SuspendedAt: k.SuspendedAt,
		LastUsedAt: k.LastUsedAt, CreatedAt: k.CreatedAt, CreatedBy: k.CreatedBy, Tags: tags,
	}
}

type credentialView struct {
	ID        string     `json:"id"`
	Provider  string     `json:"provider"`
	Label     string     `json:"label"`
	BaseURL   string     `json:"base_url,omitempty"`
	LastFour  string     `json:"last_four"`
	CreatedAt time.Time  `json:"created_at"`
	RotatedAt *time.Time `json:"rotated_at"`
}

func viewCredential(c *tenancy.Credential) credentialView {
	return credentialView{
		ID: c.ID, Provider: c.Provider, Label: c.Label, BaseURL: c.BaseURL, LastFour: c.LastFour,
		CreatedAt: c.CreatedAt, RotatedAt: c.RotatedAt,
	}
}

// tokensView is what sign-up, log-in and refresh return (also set as
// cookies) so curl users can send the access token as a Bearer token.
type tokensView struct {
	AccessToken      string    `json:"access_token"`
	AccessExpiresAt  time.Time `json:"access_expires_at"`
	RefreshToken     string    `json:"refresh_token"`
	RefreshExpiresAt time.Time `json:"refresh_expires_at"`
	CSRFToken        string    `json:"csrf_token"`
}

func viewTokens(t *tenancy.Tokens) tokensView {
	return tokensView{
		AccessToken: t.Access, AccessExpiresAt: t.AccessExpiresAt, RefreshToken: t.Refresh,
		RefreshExpiresAt: t.RefreshExpiresAt, CSRFToken: t.CSRF,
	}
}

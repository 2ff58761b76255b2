package sqlstore

import (
	"strings"
	"time"

	"github.com/heddle-gw/heddle/tenancy"
)

func utc(t time.Time) time.Time { return t.UTC() }

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

type orgRow struct {
	ID        string    `gorm:"column:id;primaryKey"`
	Name      string    `gorm:"column:name"`
	Slug      string    `gorm:"column:slug"`
	Removed   string    `gorm:"column:removed_member_keys"`
	CreatedAt time.Time `gorm:"column:created_at;autoCreateTime:false"`
	UpdatedAt time.Time `gorm:"column:updated_at;autoUpdateTime:false"`
}

func (orgRow) TableName() string { return "orgs" }

func orgToRow(o *tenancy.Org) *orgRow {
	removed := o.RemovedMemberKeys
	if removed == "" {
		removed = tenancy.KeysRevoke
	}
	return &orgRow{ID: o.ID, Name: o.Name, Slug: o.Slug, Removed: string(removed), CreatedAt: utc(o.CreatedAt), UpdatedAt: utc(o.CreatedAt)}
}

func (r *orgRow) domain() *tenancy.Org {
	return &tenancy.Org{ID: r.ID, Name: r.Name, Slug: r.Slug, RemovedMemberKeys: tenancy.KeyDisposal(r.Removed), CreatedAt: utc(r.CreatedAt)}
}

type userRow struct {
	ID           string    `gorm:"column:id;primaryKey"`
	Email        string    `gorm:"column:email"`
	PasswordHash string    `gorm:"column:password_hash"`
	CreatedAt    time.Time `gorm:"column:created_at;autoCreateTime:false"`
}

func (userRow) TableName() string { return "users" }

func userToRow(u *tenancy.User) *userRow {
	return &userRow{ID: u.ID, Email: u.Email, PasswordHash: u.PasswordHash, CreatedAt: utc(u.CreatedAt)}
}

func (r *userRow) domain() *tenancy.User {
	return &tenancy.User{ID: r.ID, Email: r.Email, PasswordHash: r.PasswordHash, CreatedAt: utc(r.CreatedAt)}
}

type membershipRow struct {
	OrgID     string    `gorm:"column:org_id;primaryKey"`
	UserID    string    `gorm:"column:user_id;primaryKey"`
	Role      string    `gorm:"column:role"`
	CreatedAt time.Time `gorm:"column:created_at;autoCreateTime:false"`
}

func (membershipRow) TableName() string { return "memberships" }

func membershipToRow(m *tenancy.Membership) *membershipRow {
	return &membershipRow{OrgID: m.OrgID, UserID: m.UserID, Role: string(m.Role), CreatedAt: utc(m.CreatedAt)}
}

func (r *membershipRow) domain() *tenancy.Membership {
	return &tenancy.Membership{OrgID: r.OrgID, UserID: r.UserID, Role: tenancy.Role(r.Role), CreatedAt: utc(r.CreatedAt)}
}

type invitationRow struct {
	ID         string     `gorm:"column:id;primaryKey"`
	OrgID      string     `gorm:"column:org_id"`
	Email      string     `gorm:"column:email"`
	Role       string     `gorm:"column:role"`
	TokenHash  string     `gorm:"column:token_hash"`
	InvitedBy  string     `gorm:"column:invited_by"`
	CreatedAt  time.Time  `gorm:"column:created_at;autoCreateTime:false"`
	ExpiresAt  time.Time  `gorm:"column:expires_at"`
	AcceptedAt *time.Time `gorm:"column:accepted_at"`
}

func (invitationRow) TableName() string { return "invitations" }

func (r *invitationRow) domain() *tenancy.Invitation {
	return &tenancy.Invitation{
		ID: r.ID, OrgID: r.OrgID, Email: r.Email, Role: tenancy.Role(r.Role), TokenHash: r.TokenHash,
		InvitedBy: r.InvitedBy, CreatedAt: utc(r.CreatedAt), ExpiresAt: utc(r.ExpiresAt), AcceptedAt: utcPtr(r.AcceptedAt),
	}
}

type sessionRow struct {
	ID          string     `gorm:"column:id;primaryKey"`
	UserID      string     `gorm:"column:user_id"`
	OrgID       string     `gorm:"column:org_id"`
	RefreshHash string     `gorm:"column:refresh_hash"`
	CreatedAt   time.Time  `gorm:"column:created_at;autoCreateTime:false"`
	RefreshedAt time.Time  `gorm:"column:refreshed_at"`
	ExpiresAt   time.Time  `gorm:"column:expires_at"`
	RevokedAt   *time.Time `gorm:"column:revoked_at"`
}

func (sessionRow) TableName() string { return "console_sessions" }

func (r *sessionRow) domain() *tenancy.Session {
	return &tenancy.Session{
		ID: r.ID, UserID: r.UserID, OrgID: r.OrgID, RefreshHash: r.RefreshHash, CreatedAt: utc(r.CreatedAt),
		RefreshedAt: utc(r.RefreshedAt), ExpiresAt: utc(r.ExpiresAt), RevokedAt: utcPtr(r.RevokedAt),
	}
}

type keyRow struct {
	ID                  string     `gorm:"column:id;primaryKey"`
	OrgID               string     `gorm:"column:org_id"`
	CreatedBy           string     `gorm:"column:created_by"`
	Name                string     `gorm:"column:name"`
	Prefix              string     `gorm:"column:prefix"`
	KeyHash             string     `gorm:"column:key_hash"`
	Scopes              string     `gorm:"column:scopes"`
	Policy              string     `gorm:"column:policy"`
	Alpha               *float64   `gorm:"column:alpha"`
	RPM                 int        `gorm:"column:rpm"`
	TPM                 int        `gorm:"column:tpm"`
	DailyBudgetMicros   int64      `gorm:"column:daily_budget_micros"`
	MonthlyBudgetMicros int64      `gorm:"column:monthly_budget_micros"`
	BudgetSoft          bool       `gorm:"column:budget_soft"`
	Tags                string     `gorm:"column:tags"`
	ExpiresAt           *time.Time `gorm:"column:expires_at"`
	RevokedAt           *time.Time `gorm:"column:revoked_at"`
	SuspendedAt         *time.Time `gorm:"column:suspended_at"`
	LastUsedAt          *time.Time `gorm:"column:last_used_at"`
	CreatedAt           time.Time  `gorm:"column:created_at;autoCreateTime:false"`
}

func (keyRow) TableName() string { return "api_keys" }

func keyToRow(k *tenancy.Key) *keyRow {
	return &keyRow{
		ID: k.ID, OrgID: k.OrgID, CreatedBy: k.CreatedBy, Name: k.Name, Prefix: k.Prefix, KeyHash: k.Hash,
		Scopes: tenancy.JoinScopes(k.Scopes), Policy: string(k.Policy), Alpha: k.Alpha,
		RPM: k.Limits.RPM, TPM: k.Limits.TPM, DailyBudgetMicros: k.Limits.DailyBudgetMicros,
		MonthlyBudgetMicros: k.Limits.MonthlyBudgetMicros, BudgetSoft: k.Limits.SoftBudgets, ExpiresAt: utcPtr(k.ExpiresAt),
		Tags:      strings.Join(k.Tags, ","),
		RevokedAt: utcPtr(k.RevokedAt), SuspendedAt: utcPtr(k.SuspendedAt), LastUsedAt: utcPtr(k.LastUsedAt), CreatedAt: utc(k.CreatedAt),
	}
}

func (r *keyRow) domain() *tenancy.Key {
	return &tenancy.Key{
		ID: r.ID, OrgID: r.OrgID, CreatedBy: r.CreatedBy, Name: r.Name, Prefix: r.Prefix, Hash: r.KeyHash,
		Scopes: tenancy.SplitScopes(r.Scopes), Policy: tenancy.Policy(r.Policy), Alpha: r.Alpha,
		Limits: tenancy.Limits{RPM: r.RPM, TPM: r.TPM, DailyBudgetMicros: r.DailyBudgetMicros, MonthlyBudgetMicros: r.MonthlyBudgetMicros,
			SoftBudgets: r.BudgetSoft},
		Tags:      splitTags(r.Tags),
		ExpiresAt: utcPtr(r.ExpiresAt), RevokedAt: utcPtr(r.RevokedAt), SuspendedAt: utcPtr(r.SuspendedAt), LastUsedAt: utcPtr(r.LastUsedAt),
		CreatedAt: utc(r.CreatedAt),
	}
}

type credentialRow struct {
	ID         string     `gorm:"column:id;primaryKey"`
	OrgID      string     `gorm:"column:org_id"`
	Provider   string     `gorm:"column:provider"`
	Label      string     `gorm:"column:label"`
	BaseURL    string     `gorm:"column:base_url"`
	LastFour   string     `gorm:"column:last_four"`
	Ciphertext []byte     `gorm:"column:ciphertext"`
	DEKVersion int64      `gorm:"column:dek_version"`
	CreatedBy  string     `gorm:"column:created_by"`
	CreatedAt  time.Time  `gorm:"column:created_at;autoCreateTime:false"`
	RotatedAt  *time.Time `gorm:"column:rotated_at"`
}

func (credentialRow) TableName() string { return "credentials" }

func credentialToRow(c *tenancy.Credential) *credentialRow {
	return &credentialRow{
		ID: c.ID, OrgID: c.OrgID, Provider: c.Provider, Label: c.Label, BaseURL: c.BaseURL, LastFour: c.LastFour,
		Ciphertext: c.Ciphertext, DEKVersion: c.DEKVersion, CreatedBy: c.CreatedBy, CreatedAt: utc(c.CreatedAt),
		RotatedAt: utcPtr(c.RotatedAt),
	}
}

func (r *credentialRow) domain() *tenancy.Credential {
	return &tenancy.Credential{
		ID: r.ID, OrgID: r.OrgID, Provider: r.Provider, Label: r.Label, BaseURL: r.BaseURL, LastFour: r.LastFour,
		Ciphertext: r.Ciphertext, DEKVersion: r.DEKVersion, CreatedBy: r.CreatedBy, CreatedAt: utc(r.CreatedAt),
		RotatedAt: utcPtr(r.RotatedAt),
	}
}

type dataKeyRow struct {
	OrgID     string    `gorm:"column:org_id;primaryKey"`
	Wrapped   []byte    `gorm:"column:wrapped"`
	Version   int64     `gorm:"column:version"`
	CreatedAt time.Time `gorm:"column:created_at;autoCreateTime:false"`
	UpdatedAt time.Time `gorm:"column:updated_at;autoUpdateTime:false"`
}

func (dataKeyRow) TableName() string { return "org_data_keys" }

func (r *dataKeyRow) domain() *tenancy.DataKey {
	return &tenancy.DataKey{OrgID: r.OrgID, Wrapped: r.Wrapped, Version: r.Version, CreatedAt: utc(r.CreatedAt), UpdatedAt: utc(r.UpdatedAt)}
}

// splitTags reads the comma-joined tags column; nil for none.
func splitTags(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

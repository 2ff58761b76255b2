package tenancytest

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/heddle-gw/heddle/tenancy"
)

// Memory is an in-memory tenancy.Store with the same contract as the SQL
// store (uniqueness, compare-and-swap, last-owner rule, org scoping). It
// copies values in and out, so callers cannot alias its state.
type Memory struct {
	mu          sync.Mutex
	users       map[string]tenancy.User
	orgs        map[string]tenancy.Org
	members     map[[2]string]tenancy.Membership // org id, user id
	invitations map[string]tenancy.Invitation
	sessions    map[string]tenancy.Session
	keys        map[string]tenancy.Key
	creds       map[string]tenancy.Credential
	dataKeys    map[string]tenancy.DataKey
	// failTouch, when set, is returned by TouchKeys.
	failTouch error
}

var _ tenancy.Store = (*Memory)(nil)

// NewMemory returns an empty Memory store.
func NewMemory() *Memory {
	return &Memory{
		users: map[string]tenancy.User{}, orgs: map[string]tenancy.Org{},
		members: map[[2]string]tenancy.Membership{}, invitations: map[string]tenancy.Invitation{},
		sessions: map[string]tenancy.Session{}, keys: map[string]tenancy.Key{},
		creds: map[string]tenancy.Credential{}, dataKeys: map[string]tenancy.DataKey{},
	}
}

// FailTouch makes TouchKeys return err (nil restores it).
func (m *Memory) FailTouch(err error) {
	m.mu.Lock()
	m.failTouch = err
	m.mu.Unlock()
}

func notFound(what string) error { return fmt.Errorf("tenancytest: %s: %w", what, tenancy.ErrNotFound) }

// CreateAccount implements tenancy.AccountStore.
func (m *Memory) CreateAccount(_ context.Context, u *tenancy.User, o *tenancy.Org, ms *tenancy.Membership) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.checkUserLocked(u); err != nil {
		return err
	}
	if err := m.checkOrgLocked(o); err != nil {
		return err
	}
	m.users[u.ID] = *u
	m.orgs[o.ID] = withDefaults(*o)
	m.members[[2]string{ms.OrgID, ms.UserID}] = *ms
	return nil
}

func (m *Memory) checkUserLocked(u *tenancy.User) error {
	if _, ok := m.users[u.ID]; ok {
		return tenancy.ErrConflict
	}
	for _, x := range m.users {
		if x.Email == u.Email {
			return tenancy.ErrEmailTaken
		}
	}
	return nil
}

func (m *Memory) checkOrgLocked(o *tenancy.Org) error {
	if _, ok := m.orgs[o.ID]; ok {
		return tenancy.ErrConflict
	}
	for _, x := range m.orgs {
		if x.Slug == o.Slug {
			return tenancy.ErrConflict
		}
	}
	return nil
}

// CreateOrg implements tenancy.AccountStore.
func (m *Memory) CreateOrg(_ context.Context, o *tenancy.Org, owner *tenancy.Membership) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.users[owner.UserID]; !ok {
		return notFound("user")
	}
	if err := m.checkOrgLocked(o); err != nil {
		return err
	}
	m.orgs[o.ID] = withDefaults(*o)
	m.members[[2]string{owner.OrgID, owner.UserID}] = *owner
	return nil
}

// UserByID implements tenancy.AccountStore.
func (m *Memory) UserByID(_ context.Context, id string) (*tenancy.User, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.users[id]
	if !ok {
		return nil, notFound("user")
	}
	return &u, nil
}

// UserByEmail implements tenancy.AccountStore.
func (m *Memory) UserByEmail(_ context.Context, email string) (*tenancy.User, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, u := range m.users {
		if u.Email == email {
			return &u, nil
		}
	}
	return nil, notFound("user")
}

// OrgByID implements tenancy.AccountStore.
func (m *Memory) OrgByID(_ context.Context, id string) (*tenancy.Org, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.orgs[id]
	if !ok {
		return nil, notFound("org")
	}
	return &o, nil
}

// withDefaults is o as the real store keeps it: a new organisation revokes
// removed members' keys.
func withDefaults(o tenancy.Org) tenancy.Org {
	if o.RemovedMemberKeys == "" {
		o.RemovedMemberKeys = tenancy.KeysRevoke
	}
	return o
}

// SetRemovedMemberKeys implements tenancy.AccountStore.
func (m *Memory) SetRemovedMemberKeys(_ context.Context, orgID string, d tenancy.KeyDisposal) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.orgs[orgID]
	if !ok {
		return notFound("org")
	}
	o.RemovedMemberKeys = d
	m.orgs[orgID] = o
	return nil
}

// OrgBySlug implements tenancy.AccountStore.
func (m *Memory) OrgBySlug(_ context.Context, slug string) (*tenancy.Org, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, o := range m.orgs {
		if o.Slug == slug {
			return &o, nil
		}
	}
	return nil, notFound("org")
}

// Membership implements tenancy.MembershipStore.
func (m *Memory) Membership(_ context.Context, orgID, userID string) (*tenancy.Membership, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, ok := m.members[[2]string{orgID, userID}]
	if !ok {
		return nil, notFound("membership")
	}
	return &ms, nil
}

// UserOrgs implements tenancy.MembershipStore.
func (m *Memory) UserOrgs(_ context.Context, userID string) ([]tenancy.OrgMembership, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ms []tenancy.Membership
	for _, x := range m.members {
		if x.UserID == userID {
			ms = append(ms, x)
		}
	}
	sort.Slice(ms, func(i, j int) bool { return older(ms[i].CreatedAt, ms[j].CreatedAt, ms[i].OrgID, ms[j].OrgID) })
	out := make([]tenancy.OrgMembership, 0, len(ms))
	for _, x := range ms {
		out = append(out, tenancy.OrgMembership{Org: m.orgs[x.OrgID], Role: x.Role})
	}
	return out, nil
}

// OrgMembers implements tenancy.MembershipStore.
func (m *Memory) OrgMembers(_ context.Context, orgID string) ([]tenancy.Member, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []tenancy.Member
	for _, x := range m.members {
		if x.OrgID == orgID {
			out = append(out, tenancy.Member{Membership: x, Email: m.users[x.UserID].Email})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return older(out[i].CreatedAt, out[j].CreatedAt, out[i].UserID, out[j].UserID)
	})
	return out, nil
}

func older(a, b time.Time, ida, idb string) bool {
	if !a.Equal(b) {
		return a.Before(b)
	}
	return ida < idb
}

func (m *Memory) ownersLocked(orgID string) int {
	n := 0
	for _, x := range m.members {
		if x.OrgID == orgID && x.Role == tenancy.RoleOwner {
			n++
		}
	}
	return n
}

// SetRole implements tenancy.MembershipStore.
func (m *Memory) SetRole(_ context.Context, orgID, userID string, role tenancy.Role) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{orgID, userID}
	ms, ok := m.members[k]
	if !ok {
		return notFound("membership")
	}
	if ms.Role == tenancy.RoleOwner && role != tenancy.RoleOwner && m.ownersLocked(orgID) == 1 {
		return tenancy.ErrLastOwner
	}
	ms.Role = role
	m.members[k] = ms
	return nil
}

// DeleteMembership implements tenancy.MembershipStore.
func (m *Memory) DeleteMembership(_ context.Context, orgID, userID string, at time.Time, keys tenancy.KeyDisposal) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{orgID, userID}
	ms, ok := m.members[k]
	if !ok {
		return notFound("membership")
	}
	if ms.Role == tenancy.RoleOwner && m.ownersLocked(orgID) == 1 {
		return tenancy.ErrLastOwner
	}
	delete(m.members, k)
	for id, key := range m.keys {
		if key.OrgID == orgID && key.CreatedBy == userID && key.RevokedAt == nil && key.SuspendedAt == nil {
			if keys == tenancy.KeysSuspend {
				key.SuspendedAt = &at
			} else {
				key.RevokedAt = &at
			}
			m.keys[id] = key
		}
	}
	return nil
}

// CreateInvitation implements tenancy.InvitationStore.
func (m *Memory) CreateInvitation(_ context.Context, inv *tenancy.Invitation) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.orgs[inv.OrgID]; !ok {
		return notFound("org")
	}
	for _, x := range m.invitations {
		if x.ID == inv.ID || x.TokenHash == inv.TokenHash {
			return tenancy.ErrConflict
		}
	}
	m.invitations[inv.ID] = *inv
	return nil
}

// InvitationByTokenHash implements tenancy.InvitationStore.
func (m *Memory) InvitationByTokenHash(_ context.Context, hash string) (*tenancy.Invitation, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, x := range m.invitations {
		if x.TokenHash == hash {
			return &x, nil
		}
	}
	return nil, notFound("invitation")
}

// OrgInvitations implements tenancy.InvitationStore.
func (m *Memory) OrgInvitations(_ context.Context, orgID string) ([]tenancy.Invitation, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []tenancy.Invitation
	for _, x := range m.invitations {
		if x.OrgID == orgID && x.AcceptedAt == nil {
			out = append(out, x)
		}
	}
	sort.Slice(out, func(i, j int) bool { return older(out[i].CreatedAt, out[j].CreatedAt, out[i].ID, out[j].ID) })
	return out, nil
}

// DeleteInvitation implements tenancy.InvitationStore.
func (m *Memory) DeleteInvitation(_ context.Context, orgID, invitationID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	inv, ok := m.invitations[invitationID]
	if !ok || inv.OrgID != orgID || inv.AcceptedAt != nil {
		return notFound("invitation")
	}
	delete(m.invitations, invitationID)
	return nil
}

// AcceptInvitation implements tenancy.InvitationStore.
func (m *Memory) AcceptInvitation(_ context.Context, invID string, newUser *tenancy.User, ms *tenancy.Membership, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	inv, ok := m.invitations[invID]
	if !ok || inv.AcceptedAt != nil {
		return tenancy.ErrInvitationInvalid
	}
	if newUser != nil {
		if err := m.checkUserLocked(newUser); err != nil {
			return err
		}
	} else if _, ok := m.users[ms.UserID]; !ok {
		return notFound("user")
	}
	if newUser != nil {
		m.users[newUser.ID] = *newUser
	}
	k := [2]string{ms.OrgID, ms.UserID}
	if cur, ok := m.members[k]; ok {
		if cur.Role == tenancy.RoleOwner && ms.Role != tenancy.RoleOwner && m.ownersLocked(ms.OrgID) == 1 {
			return tenancy.ErrLastOwner
		}
		cur.Role = ms.Role
		m.members[k] = cur
	} else {
		m.members[k] = *ms
	}
	inv.AcceptedAt = &at
	m.invitations[invID] = inv
	return nil
}

// CreateSession implements tenancy.SessionStore.
func (m *Memory) CreateSession(_ context.Context, s *tenancy.Session) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.sessions[s.ID]; ok {
		return tenancy.ErrConflict
	}
	m.sessions[s.ID] = *s
	return nil
}

// SessionByID implements tenancy.SessionStore.
func (m *Memory) SessionByID(_ context.Context, id string) (*tenancy.Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return nil, notFound("session")
	}
	return &s, nil
}

// RotateRefresh implements tenancy.SessionStore.
func (m *Memory) RotateRefresh(_ context.Context, id, oldHash, newHash string, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return notFound("session")
	}
	if s.RefreshHash != oldHash {
		return tenancy.ErrConflict
	}
	s.RefreshHash, s.RefreshedAt = newHash, at
	m.sessions[id] = s
	return nil
}

// SetSessionOrg implements tenancy.SessionStore.
func (m *Memory) SetSessionOrg(_ context.Context, id, orgID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return notFound("session")
	}
	s.OrgID = orgID
	m.sessions[id] = s
	return nil
}

// RevokeSession implements tenancy.SessionStore.
func (m *Memory) RevokeSession(_ context.Context, id string, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return notFound("session")
	}
	if s.RevokedAt == nil {
		s.RevokedAt = &at
		m.sessions[id] = s
	}
	return nil
}

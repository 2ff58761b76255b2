package tenancy

// Role is a member's role in an organisation.
type Role string

// Roles, strongest first.
const (
	RoleOwner  Role = "owner"
	RoleAdmin  Role = "admin"
	RoleMember Role = "member"
	RoleViewer Role = "viewer"
)

// Valid reports whether r is one of the four roles.
func (r Role) Valid() bool { return r.rank() > 0 }

func (r Role) rank() int {
	switch r {
	case RoleOwner:
		return 4
	case RoleAdmin:
		return 3
	case RoleMember:
		return 2
	case RoleViewer:
		return 1
	}
	return 0
}

// AtLeast reports whether r is as strong as o.
func (r Role) AtLeast(o Role) bool { return r.Valid() && r.rank() >= o.rank() }

// Actor is who performs an action: a user acting in one organisation with
// the role they hold there. Services check permissions and scope every query
// by Actor.OrgID.
type Actor struct {
	UserID string
	OrgID  string
	Role   Role
}

// Permission is something an actor may be allowed to do.
type Permission int

// Permissions.
const (
	// PermRead reads the organisation's members, keys and credentials (never secrets).
	PermRead Permission = iota + 1
	// PermCreateOwnKey creates rk_ keys and manages the keys one created.
	PermCreateOwnKey
	// PermManageKeys manages every key of the organisation.
	PermManageKeys
	// PermManageCredentials adds, tests, rotates and deletes BYOK credentials.
	PermManageCredentials
	// PermManageMembers invites, re-roles and removes members.
	PermManageMembers
	// PermReadContent reads stored prompt and response content.
	PermReadContent
)

// Can reports whether the actor's role grants p: viewers read, members also
// create their own keys, admins and owners manage everything and alone read
// stored prompts and responses.
func (a Actor) Can(p Permission) bool {
	switch p {
	case PermRead:
		return a.Role.AtLeast(RoleViewer)
	case PermCreateOwnKey:
		return a.Role.AtLeast(RoleMember)
	case PermManageKeys, PermManageCredentials, PermManageMembers, PermReadContent:
		return a.Role.AtLeast(RoleAdmin)
	}
	return false
}

func (a Actor) require(p Permission) error {
	if a.OrgID == "" || !a.Can(p) {
		return ErrForbidden
	}
	return nil
}

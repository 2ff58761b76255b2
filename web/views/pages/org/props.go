// Package org holds the console's organisation page: the organisation's
// name and id, its members and their roles, pending invitations, the invite
// form (whose response shows the invitation token once) and the role and
// removal controls admins and owners get.
//
// Ring: presentation. No I/O.
package org

import "github.com/heddle-gw/heddle/web/views/layout"

// Info is the organisation itself.
type Info struct {
	ID      string
	Name    string
	Slug    string
	Created string
}

// Member is one member row. CanChange and CanRemove say which controls the
// viewer gets for this row; Error and Saved are the outcome of the last
// action on it.
type Member struct {
	UserID    string
	Email     string
	Role      string
	Joined    string
	You       bool
	CanChange bool
	CanRemove bool
	Roles     []string // the roles the viewer may pick for this member
	Error     string
	Saved     string
	CSRF      string
}

// Invitation is one pending invitation (never its token).
type Invitation struct {
	ID      string
	Email   string
	Role    string
	Created string
	Expires string
	CSRF    string // for its cancel button
}

// InviteForm is the invite form with the values and errors of a failed
// submission.
type InviteForm struct {
	CSRF   string
	Email  string
	Role   string
	Roles  []string // the roles the viewer may invite with
	Error  string
	Fields map[string]string
}

// Invited is the response to a successful invitation: its token and the
// path that accepts it, shown this once.
type Invited struct {
	Email      string
	Role       string
	Token      string
	AcceptPath string
	Link       string // the console page that accepts it, /invite/<token>
	Expires    string
}

// InvitedProps is the htmx response to an invitation: the token, a fresh
// form and the updated list of pending invitations.
type InvitedProps struct {
	Invited     Invited
	Form        InviteForm
	Invitations []Invitation
}

// PageProps is the whole organisation page.
type PageProps struct {
	Layout      layout.Props
	Org         Info
	Role        string // the viewer's role
	CanManage   bool   // the viewer may invite, re-role and remove
	Members     []Member
	Invitations []Invitation
	Form        InviteForm
	Invited     *Invited // set when the page answers a non-htmx invitation
	Error       string
	Privacy     *Privacy // nil: content storage is not available
}

// Roles are the four roles, strongest first.
var Roles = []string{"owner", "admin", "member", "viewer"}

func roleClass(role string) string {
	if role == "owner" || role == "admin" {
		return "pill good"
	}
	return "pill"
}

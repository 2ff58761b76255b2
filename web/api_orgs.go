package web

import (
	"errors"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/heddle-gw/heddle/tenancy"
)

// listOrgs handles GET /api/v1/orgs: the caller's organisations.
func (a *API) listOrgs(c *fiber.Ctx) error {
	auth := AuthOf(c)
	orgs, err := a.d.Accounts.Orgs(c.UserContext(), auth.UserID)
	if err != nil {
		return a.fail(c, err)
	}
	out := make([]orgView, len(orgs))
	for i := range orgs {
		out[i] = viewOrg(&orgs[i].Org, orgs[i].Role)
		out[i].Current = orgs[i].Org.ID == auth.OrgID
	}
	return c.JSON(fiber.Map{"orgs": out})
}

type createOrgRequest struct {
	Name string `json:"name"`
}

// createOrg handles POST /api/v1/orgs: a new organisation owned by the caller.
func (a *API) createOrg(c *fiber.Ctx) error {
	var req createOrgRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	if err := a.d.Limiter.AllowOrg(utils.CopyString(c.IP())); err != nil {
		return a.fail(c, err)
	}
	o, err := a.d.Accounts.CreateOrg(c.UserContext(), AuthOf(c).UserID, req.Name)
	if err != nil {
		return a.fail(c, err)
	}
	return c.Status(fiber.StatusCreated).JSON(viewOrg(o, tenancy.RoleOwner))
}

// currentOrg handles GET /api/v1/orgs/current.
func (a *API) currentOrg(c *fiber.Ctx) error {
	act, err := a.actor(c)
	if err != nil {
		return a.fail(c, err)
	}
	o, err := a.d.Accounts.Org(c.UserContext(), act)
	if err != nil {
		return a.fail(c, err)
	}
	v := viewOrg(o, act.Role)
	v.Current = true
	return c.JSON(v)
}

type updateOrgRequest struct {
	RemovedMemberKeys string `json:"removed_member_keys"`
}

// updateOrg handles PATCH /api/v1/orgs/:id (admins and owners of the
// current organisation): {"removed_member_keys": "revoke" | "suspend"}.
func (a *API) updateOrg(c *fiber.Ctx) error {
	act, err := a.orgActor(c)
	if err != nil {
		return a.fail(c, err)
	}
	var req updateOrgRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	ctx := c.UserContext()
	if err := a.d.Members.SetRemovedMemberKeys(ctx, act, tenancy.KeyDisposal(req.RemovedMemberKeys)); err != nil {
		return a.fail(c, err)
	}
	o, err := a.d.Accounts.Org(ctx, act)
	if err != nil {
		return a.fail(c, err)
	}
	a.d.Logger.InfoContext(ctx, "organisation updated", "org_id", act.OrgID, "user_id", act.UserID, "removed_member_keys", req.RemovedMemberKeys)
	v := viewOrg(o, act.Role)
	v.Current = true
	return c.JSON(v)
}

type switchOrgRequest struct {
	OrgID string `json:"org_id"`
}

// switchOrg handles PUT /api/v1/orgs/current: the session acts in another
// of the caller's organisations from now on.
func (a *API) switchOrg(c *fiber.Ctx) error {
	var req switchOrgRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	ctx := c.UserContext()
	auth := AuthOf(c)
	act, err := a.d.Accounts.Actor(ctx, auth.UserID, req.OrgID)
	if err != nil {
		return a.fail(c, err)
	}
	o, err := a.d.Accounts.Org(ctx, act)
	if err != nil {
		return a.fail(c, err)
	}
	if err := a.d.Sessions.SwitchOrg(ctx, auth.SessionID, o.ID); err != nil {
		return a.fail(c, err)
	}
	v := viewOrg(o, act.Role)
	v.Current = true
	return c.JSON(v)
}

type membersResponse struct {
	Members     []memberView     `json:"members"`
	Invitations []invitationView `json:"invitations,omitempty"`
}

// listMembers handles GET /api/v1/orgs/:id/members (pending invitations
// too, for admins).
func (a *API) listMembers(c *fiber.Ctx) error {
	act, err := a.orgActor(c)
	if err != nil {
		return a.fail(c, err)
	}
	ctx := c.UserContext()
	ms, err := a.d.Members.List(ctx, act)
	if err != nil {
		return a.fail(c, err)
	}
	resp := membersResponse{Members: make([]memberView, len(ms))}
	for i, m := range ms {
		resp.Members[i] = memberView{UserID: m.UserID, Email: m.Email, Role: string(m.Role), JoinedAt: m.CreatedAt}
	}
	if act.Can(tenancy.PermManageMembers) {
		invs, err := a.d.Members.Invitations(ctx, act)
		if err != nil {
			return a.fail(c, err)
		}
		for i := range invs {
			resp.Invitations = append(resp.Invitations, viewInvitation(&invs[i]))
		}
	}
	return c.JSON(resp)
}

type inviteRequest struct {
	Email string `json:"email"`
	Role  string `json:"role"`
}

type inviteResponse struct {
	Invitation invitationView `json:"invitation"`
	// Token is shown once; the invitee accepts at AcceptPath.
	Token      string `json:"token"`
	AcceptPath string `json:"accept_path"`
}

// inviteMember handles POST /api/v1/orgs/:id/members.
func (a *API) inviteMember(c *fiber.Ctx) error {
	act, err := a.orgActor(c)
	if err != nil {
		return a.fail(c, err)
	}
	var req inviteRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	inv, token, err := a.d.Members.Invite(c.UserContext(), act, req.Email, tenancy.Role(req.Role))
	if err != nil {
		return a.fail(c, err)
	}
	return c.Status(fiber.StatusCreated).JSON(inviteResponse{
		Invitation: viewInvitation(inv), Token: token, AcceptPath: "/api/v1/invitations/" + token + "/accept",
	})
}

type roleRequest struct {
	Role string `json:"role"`
}

// changeRole handles PATCH /api/v1/orgs/:id/members/:user.
func (a *API) changeRole(c *fiber.Ctx) error {
	act, err := a.orgActor(c)
	if err != nil {
		return a.fail(c, err)
	}
	var req roleRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	if err := a.d.Members.ChangeRole(c.UserContext(), act, param(c, "user"), tenancy.Role(req.Role)); err != nil {
		return a.fail(c, err)
	}
	return c.JSON(fiber.Map{"user_id": param(c, "user"), "role": req.Role})
}

// removeMember handles DELETE /api/v1/orgs/:id/members/:user.
func (a *API) removeMember(c *fiber.Ctx) error {
	act, err := a.orgActor(c)
	if err != nil {
		return a.fail(c, err)
	}
	if err := a.d.Members.Remove(c.UserContext(), act, param(c, "user")); err != nil {
		return a.fail(c, err)
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// cancelInvitation handles DELETE /api/v1/orgs/:id/invitations/:inv: the
// invitation's token stops working.
func (a *API) cancelInvitation(c *fiber.Ctx) error {
	act, err := a.orgActor(c)
	if err != nil {
		return a.fail(c, err)
	}
	inv := param(c, "inv")
	if err := a.d.Members.Cancel(c.UserContext(), act, inv); err != nil {
		return a.fail(c, err)
	}
	a.d.Logger.InfoContext(c.UserContext(), "invitation cancelled", "org_id", act.OrgID, "user_id", act.UserID, "invitation_id", inv)
	return c.SendStatus(fiber.StatusNoContent)
}

type acceptRequest struct {
	Password string `json:"password"`
}

type acceptResponse struct {
	Org         orgView  `json:"org"`
	User        userView `json:"user"`
	*tokensView          // set when the acceptance also logged the invitee in
}

// acceptInvitation handles POST /api/v1/invitations/:token/accept, either
// by a logged-in user (cookie with CSRF, or Bearer) whose email was
// invited, or with a password (an existing account's, or a new one's), in
// which case it also starts a session in the organisation.
func (a *API) acceptInvitation(c *fiber.Ctx) error {
	auth, err := a.authenticate(c)
	if err != nil {
		return a.fail(c, err)
	}
	var req acceptRequest
	if err := a.decode(c, &req, auth != nil); err != nil {
		return a.fail(c, err)
	}
	ip := utils.CopyString(c.IP())
	if err := a.d.Limiter.Allow(ip, ""); err != nil {
		return a.fail(c, err)
	}
	ctx := c.UserContext()
	in := tenancy.AcceptInput{Password: req.Password}
	if auth != nil {
		in = tenancy.AcceptInput{UserID: auth.UserID}
	}
	u, m, err := a.d.Members.Accept(ctx, param(c, "token"), in)
	if errors.Is(err, tenancy.ErrInvalidLogin) {
		a.d.Limiter.Failed(ip, "") // a wrong password of the invited account counts as a failed log-in
	}
	if err != nil {
		return a.fail(c, err)
	}
	o, err := a.d.Accounts.Org(ctx, tenancy.Actor{UserID: u.ID, OrgID: m.OrgID, Role: m.Role})
	if err != nil {
		return a.fail(c, err)
	}
	resp := acceptResponse{Org: viewOrg(o, m.Role), User: viewUser(u)}
	if auth == nil {
		tok, err := a.d.Sessions.Start(ctx, u.ID, m.OrgID)
		if err != nil {
			return a.fail(c, err)
		}
		a.setSessionCookies(c, tok)
		tv := viewTokens(tok)
		resp.tokensView = &tv
	}
	return c.JSON(resp)
}

package web

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/credits"
)

// staleDebitView is one stale-hold debit as the operator API shows it: the
// debit, its organisation, its refund if one was recorded, else the call
// that refunds it.
type staleDebitView struct {
	Debit   entryView   `json:"debit"`
	OrgID   string      `json:"org_id"`
	OrgName string      `json:"org_name"`
	Refund  *entryView  `json:"refund"`
	Action  *refundCall `json:"refund_action,omitempty"`
}

// refundCall is the request that refunds a stale debit (amount_micros: up
// to the debited amount; omitted, all of it).
type refundCall struct {
	Method       string `json:"method"`
	Path         string `json:"path"`
	AmountMicros int64  `json:"amount_micros"`
}

// mountOperatorStale registers the stale-hold debits on the operator group.
func (a *API) mountOperatorStale(op fiber.Router) {
	op.Get("/stale-debits", a.opStaleDebits)
	op.Post("/stale-debits/:id/refund", a.opRefundStale)
}

// opStaleDebits handles GET /api/v1/operator/stale-debits?before=ID&limit=N:
// every organisation's stale-hold debits, newest first, with the next
// page's cursor.
func (a *API) opStaleDebits(c *fiber.Ctx) error {
	limit, _ := strconv.Atoi(c.Query("limit"))
	ds, err := a.d.Billing.Credits.StaleDebits(c.UserContext(), credits.StaleQuery{Before: c.Query("before"), Limit: limit})
	if err != nil {
		return a.fail(c, err)
	}
	out := make([]staleDebitView, len(ds))
	for i := range ds {
		d := &ds[i]
		out[i] = staleDebitView{Debit: viewEntry(&d.Debit), OrgID: d.Debit.OrgID, OrgName: d.OrgName}
		if d.Refund != nil {
			r := viewEntry(d.Refund)
			out[i].Refund = &r
		} else {
			out[i].Action = &refundCall{Method: fiber.MethodPost, Path: "/api/v1/operator/stale-debits/" + d.Debit.ID + "/refund",
				AmountMicros: -d.Debit.AmountMicros}
		}
	}
	next := ""
	if len(ds) > 0 && (limit <= 0 && len(ds) == credits.DefaultPage || limit > 0 && len(ds) == limit) {
		next = ds[len(ds)-1].Debit.ID
	}
	return c.JSON(fiber.Map{"stale_debits": out, "next": next})
}

type refundStaleRequest struct {
	AmountMicros int64  `json:"amount_micros"`
	Reason       string `json:"reason"`
}

// opRefundStale handles POST /api/v1/operator/stale-debits/:id/refund: 201
// with the refund, or 200 with the one recorded before.
func (a *API) opRefundStale(c *fiber.Ctx) error {
	var req refundStaleRequest
	if err := a.decode(c, &req, true); err != nil {
		return a.fail(c, err)
	}
	e, added, err := a.d.Billing.Credits.RefundStale(c.UserContext(), param(c, "id"), req.AmountMicros, AuthOf(c).UserID, req.Reason)
	return a.entryAnswer(c, e, added, err)
}

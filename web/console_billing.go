package web

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/web/views/components"
	bill "github.com/heddle-gw/heddle/web/views/pages/billing"
)

// ledgerPageSize is the console ledger's page.
const ledgerPageSize = 25

// perMillion formats a price per million tokens.
func perMillion(usd float64) string { return "$" + strconv.FormatFloat(usd, 'f', -1, 64) }

// basisPoints formats a multiplier or fee in basis points ("1.5×", "2%").
func basisPoints(bp int64, times bool) string {
	if times {
		return strconv.FormatFloat(float64(bp)/credits.BasisPoints, 'f', -1, 64) + "×"
	}
	return strconv.FormatFloat(float64(bp)/100, 'f', -1, 64) + "%"
}

// ledgerRows reads one console page of orgID's ledger older than before.
func (c *Console) ledgerRows(ctx *fiber.Ctx, orgID, before string) (bill.LedgerProps, error) {
	es, err := c.d.Billing.Credits.Entries(ctx.UserContext(), orgID, credits.EntryQuery{Before: before, Limit: ledgerPageSize})
	if err != nil {
		return bill.LedgerProps{}, err
	}
	p := bill.LedgerProps{Entries: make([]bill.Entry, len(es))}
	for i, e := range es {
		p.Entries[i] = bill.Entry{ID: e.ID, Time: components.Time(e.CreatedAt), Kind: string(e.Kind), Amount: components.USD(e.AmountMicros),
			Reason: e.Reason, RequestID: e.RequestID, Actor: e.Actor, Negative: e.AmountMicros < 0}
	}
	if len(es) == ledgerPageSize {
		p.Next = es[len(es)-1].ID
	}
	return p, nil
}

// billingPage handles GET /billing (?before= pages the ledger without htmx).
func (c *Console) billingPage(ctx *fiber.Ctx) error {
	act, err := c.api.settingsActor(ctx, false)
	if err != nil {
		return c.fail(ctx, err)
	}
	v, err := c.api.billingState(ctx.UserContext(), act.OrgID)
	if err != nil {
		return c.fail(ctx, err)
	}
	ledger, err := c.ledgerRows(ctx, act.OrgID, formValue(ctx, "before"))
	if err != nil {
		return c.fail(ctx, err)
	}
	p := bill.ContentProps{Balance: components.USD(v.BalanceMicros), Reserved: components.USD(v.ReservedMicros),
		Available: components.USD(v.AvailableMicros), Low: v.BalanceMicros <= 0, Ledger: ledger}
	for _, u := range v.Usage {
		p.Usage = append(p.Usage, bill.Usage{Model: u.Model, Key: u.KeyID, Requests: strconv.Itoa(u.Requests), Amount: components.USD(u.Micros)})
	}
	for _, r := range v.Reservations {
		p.Reservations = append(p.Reservations, bill.Reservation{RequestID: r.RequestID, Amount: components.USD(r.AmountMicros), Since: components.Time(r.CreatedAt)})
	}
	if v.Plan != nil {
		p.Plan = &bill.Plan{Name: v.Plan.Name, Multiplier: basisPoints(v.Plan.MultiplierBP, true),
			Included: components.USD(v.Plan.IncludedMonthlyMicros), BYOKFee: basisPoints(v.Plan.BYOKFeeBP, false)}
		for _, pr := range v.Prices {
			p.Plan.Prices = append(p.Plan.Prices, bill.Price{Model: pr.Model, Input: perMillion(pr.Input), Output: perMillion(pr.Output), CacheRead: perMillion(pr.CacheRead)})
		}
	}
	now := c.d.Now().UTC()
	for i := range 12 {
		p.Months = append(p.Months, time.Date(now.Year(), now.Month()-time.Month(i), 1, 0, 0, 0, 0, time.UTC).Format("2006-01"))
	}
	return c.render(ctx, fiber.StatusOK, bill.Page(bill.PageProps{Layout: c.layoutFor(ctx, "Billing", "billing"), Content: p}))
}

// billingLedger handles GET /billing/ledger?before=ID: the next ledger
// rows (an htmx partial).
func (c *Console) billingLedger(ctx *fiber.Ctx) error {
	act, err := c.api.settingsActor(ctx, false)
	if err != nil {
		return c.fail(ctx, err)
	}
	p, err := c.ledgerRows(ctx, act.OrgID, formValue(ctx, "before"))
	if err != nil {
		return c.fail(ctx, err)
	}
	return c.render(ctx, fiber.StatusOK, bill.LedgerRows(p))
}

// billingStatement handles GET /billing/statements/:month?format=pdf|csv|json.
func (c *Console) billingStatement(ctx *fiber.Ctx) error {
	st, org, format, err := c.api.statement(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	return sendStatement(ctx, st, org, format)
}

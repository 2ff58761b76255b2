package app

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/credits"
	creditsql "github.com/heddle-gw/heddle/credits/sqlstore"
	"github.com/heddle-gw/heddle/dispatch/provider/openaicompat"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/internal/netpolicy"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/web"
)

// validateBilling checks the hosted-billing variables.
func (c Config) validateBilling() []error {
	var errs []error
	if c.LowBalanceMicros < 0 {
		errs = append(errs, fmt.Errorf("HEDDLE_LOW_BALANCE_MICROS: %d; want 0 or more", c.LowBalanceMicros))
	}
	if c.LowBalanceWebhook == "" {
		return errs
	}
	u, err := url.Parse(c.LowBalanceWebhook)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		errs = append(errs, errors.New("HEDDLE_LOW_BALANCE_WEBHOOK: want an absolute http(s) URL"))
	case netpolicy.Host(u.Hostname(), c.AllowPrivate) != nil:
		errs = append(errs, fmt.Errorf("HEDDLE_LOW_BALANCE_WEBHOOK: %w", netpolicy.Host(u.Hostname(), c.AllowPrivate)))
	case c.LowBalanceWebhookSecret == "":
		errs = append(errs, errors.New("HEDDLE_LOW_BALANCE_WEBHOOK_SECRET is required with HEDDLE_LOW_BALANCE_WEBHOOK (the alert is signed)"))
	}
	return errs
}

// wireCredits builds hosted billing's service (operators, plans, ledger)
// over the app database; the low-balance alert goes to the log and, when
// configured, to a signed webhook.
func (c *components) wireCredits() {
	var alerts credits.AlertSink
	if c.cfg.LowBalanceWebhook != "" {
		hc := &http.Client{Timeout: 10 * time.Second}
		if !c.cfg.AllowPrivate {
			hc = openaicompat.GuardedClient(hc) // the address policy at dial time and on redirects
		}
		alerts = &webhookAlerts{url: c.cfg.LowBalanceWebhook, secret: []byte(c.cfg.LowBalanceWebhookSecret), hc: hc,
			logger: c.logger.With("component", "credits")}
	}
	c.credits = credits.NewService(creditsql.New(c.db), credits.Config{Logger: c.logger.With("component", "credits"),
		Alerts: alerts, LowBalanceMicros: int64(c.cfg.LowBalanceMicros)})
}

// grantFirstOperator gives HEDDLE_OPERATOR_EMAIL's user the operator role
// at start. Only a user who already signed up is granted (never one who
// signs up later with that email: sign-up does not verify addresses, so a
// stranger could claim it); otherwise it says how to finish.
func (c *components) grantFirstOperator(ctx context.Context) error {
	if c.cfg.OperatorEmail == "" {
		return nil
	}
	u, err := c.accounts.UserByEmail(ctx, c.cfg.OperatorEmail)
	if errors.Is(err, tenancy.ErrNotFound) {
		c.logger.WarnContext(ctx, "HEDDLE_OPERATOR_EMAIL names no signed-up user: sign up, then restart or run heddle operator add")
		return nil
	}
	if err != nil {
		return fmt.Errorf("app: first operator: %w", err)
	}
	if err := c.credits.AddOperator(ctx, u.ID, "env"); err != nil {
		return fmt.Errorf("app: first operator: %w", err)
	}
	c.logger.InfoContext(ctx, "operator role granted from HEDDLE_OPERATOR_EMAIL", "user_id", u.ID)
	return nil
}

// creditFunding is the gateway's Credits: the credits service, with each
// organisation's plan narrowed to the catalog providers a platform
// credential exists for, and its BYOK providers.
type creditFunding struct {
	*credits.Service
	usable *providerSet
}

var _ gateway.Credits = creditFunding{}

// Funding reads orgID's plan (per turn: a change applies from the next
// request) and, when it has one, which providers it has BYOK for.
func (f creditFunding) Funding(ctx context.Context, orgID string) (gateway.Funding, error) {
	p, err := f.OrgPlan(ctx, orgID)
	if err != nil || p == nil {
		return gateway.Funding{}, err
	}
	byok, err := f.usable.byok(ctx, orgID)
	if err != nil {
		return gateway.Funding{}, err
	}
	platform, err := f.usable.platformFor(ctx, p)
	if err != nil {
		return gateway.Funding{}, err
	}
	np := *p
	np.Providers = platform
	return gateway.Funding{Plan: &np, BYOK: byok}, nil
}

// platformFor lists the catalog providers plan p lets use a platform
// credential that exists (a plan names credential names such as "openai",
// which also enables "openai-responses").
func (p *providerSet) platformFor(ctx context.Context, plan *credits.Plan) ([]string, error) {
	have, err := p.byok(ctx, credits.PlatformOrgID)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, prov := range p.catalog.Providers() {
		if have[prov.Name] && (slices.Contains(plan.Providers, prov.CredentialName()) || slices.Contains(plan.Providers, prov.Name)) {
			out = append(out, prov.Name)
		}
	}
	return out, nil
}

// knownCredentialProvider reports whether name is a catalog provider or
// the credential name one uses (what plans may list).
func knownCredentialProvider(cat *catalog.Catalog) func(string) bool {
	return func(name string) bool {
		for _, p := range cat.Providers() {
			if p.Name == name || p.CredentialName() == name {
				return true
			}
		}
		return false
	}
}

// webhookAlerts POSTs low-balance alerts as JSON signed with
// X-Heddle-Signature: sha256=<hex HMAC of the body>, in the background.
type webhookAlerts struct {
	url    string
	secret []byte
	hc     *http.Client
	logger *slog.Logger
}

func (w *webhookAlerts) Notify(ctx context.Context, a credits.LowBalance) {
	body, err := json.Marshal(struct {
		Type string `json:"type"`
		credits.LowBalance
	}{"low_balance", a})
	if err != nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := w.send(ctx, body); err != nil {
			w.logger.WarnContext(ctx, "low-balance webhook failed", "org_id", a.OrgID, "err", err)
		}
	}()
}

// sign is the webhook signature of body under secret.
func sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

func (w *webhookAlerts) send(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Heddle-Signature", sign(w.secret, body))
	resp, err := w.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("webhook answered %d", resp.StatusCode)
	}
	return nil
}

// operatorCommand grants the platform operator role from the command line:
// heddle operator add EMAIL (the user must have signed up).
func operatorCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	for _, a := range args {
		if isHelp(a) {
			fmt.Fprint(stdout, operatorHelp)
			return nil
		}
	}
	if len(args) != 2 || args[0] != "add" {
		return errors.New("usage: heddle operator add EMAIL")
	}
	c, err := openTenancy(ctx, getenv, stderr)
	if err != nil {
		return err
	}
	defer c.closeStores()
	c.wireCredits()
	u, err := c.accounts.UserByEmail(ctx, args[1])
	if err != nil {
		return fmt.Errorf("operator add: %s: %w (the user signs up first)", args[1], err)
	}
	if err := c.credits.AddOperator(ctx, u.ID, "cli"); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s is an operator\n", u.Email)
	return nil
}

// billingDeps are the web layer's hosted-billing collaborators.
func (c *components) billingDeps() web.BillingDeps {
	return web.BillingDeps{Credits: c.credits,
		KnownProvider: knownCredentialProvider(c.catalog), Payments: operatorPayments{c.credits},
		CredentialName: func(provider string) string {
			if p, err := c.catalog.Provider(provider); err == nil {
				return p.CredentialName()
			}
			return provider
		}}
}

// operatorPayments is the first payment provider: an operator's top-up
// through the operator API, recorded as a top-up idempotent by the
// reference the operator gives (a payment processor's id, an invoice
// number). No payment service is reachable from here, so none is faked.
type operatorPayments struct{ credits *credits.Service }

var _ web.PaymentProvider = operatorPayments{}

func (p operatorPayments) Credit(ctx context.Context, pay web.Payment) (*credits.Entry, bool, error) {
	reason := pay.Reason
	if reason == "" {
		reason = "top-up recorded by an operator"
	}
	return p.credits.Credit(ctx, credits.CreditInput{OrgID: pay.OrgID, Kind: credits.KindTopUp, AmountMicros: pay.AmountMicros,
		Actor: pay.Actor, Reason: reason, Reference: pay.Reference})
}

// runReservationJanitor settles stale credit reservations at their
// reservation (credits.Service.SettleStale: a replica that stopped, or a
// settlement that failed for good) every interval until ctx ends; settled
// counts them (the heddle_credit_stale_settled_total metric).
func runReservationJanitor(ctx context.Context, c *credits.Service, interval time.Duration, logger *slog.Logger, settled func(n int, micros int64)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			sctx, cancel := context.WithTimeout(ctx, time.Minute)
			n, micros, err := c.SettleStale(sctx)
			settled(n, micros)
			if err != nil {
				logger.WarnContext(ctx, "stale credit reservations not settled (retried next sweep)", "err", err)
			}
			cancel()
		}
	}
}

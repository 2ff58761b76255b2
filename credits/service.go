package credits

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/heddle-gw/heddle/internal/ttlcache"
)

// Config are a Service's settings.
type Config struct {
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Logger receives low-balance alerts and settlement failures (nil
	// discards).
	Logger *slog.Logger
	// Alerts, when set, is told when a settlement leaves a balance below
	// LowBalanceMicros.
	Alerts AlertSink
	// LowBalanceMicros is the low-balance threshold (0: no alerts).
	LowBalanceMicros int64
}

// AlertSink hears of organisations whose balance fell below the threshold.
// Notify must not block (it runs after a request was served).
type AlertSink interface {
	Notify(ctx context.Context, a LowBalance)
}

// LowBalance is one low-balance alert.
type LowBalance struct {
	OrgID          string    `json:"org_id"`
	BalanceMicros  int64     `json:"balance_micros"`
	ThresholdMicro int64     `json:"threshold_micros"`
	At             time.Time `json:"at"`
}

// Service is hosted billing's one entry point: operators, plans and the
// ledger.
type Service struct {
	store Store
	cfg   Config
	// included remembers the (org, month) pairs whose included credit this
	// replica already granted, so the grant is tried once per month per
	// replica; the ledger's reference keeps it once across replicas.
	mu       sync.Mutex
	included map[string]bool
	// plans caches each organisation's plan for PlanTTL: the request path
	// reads it twice per request (limits at authentication, the credits
	// stage). Changes made through this Service apply from the next request
	// on this replica, on the others within PlanTTL.
	plans *ttlcache.Cache[*Plan]
}

// PlanTTL bounds how long another replica keeps serving an organisation's
// previous plan after a change.
const PlanTTL = 2 * time.Second

// NewService returns a Service over store.
func NewService(store Store, cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, cfg: cfg, included: map[string]bool{}, plans: ttlcache.New[*Plan](PlanTTL, 0, cfg.Now)}
}

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// AddOperator gives userID the platform role; by names who did it (a user
// id, or "cli"/"env" for the first operator).
func (s *Service) AddOperator(ctx context.Context, userID, by string) error {
	return s.store.AddOperator(ctx, userID, by, s.cfg.Now().UTC())
}

// RequireOperator returns nil for an operator, ErrNotOperator otherwise.
func (s *Service) RequireOperator(ctx context.Context, userID string) error {
	ok, err := s.store.IsOperator(ctx, userID)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNotOperator
	}
	return nil
}

// Operators lists the operators.
func (s *Service) Operators(ctx context.Context) ([]Operator, error) { return s.store.Operators(ctx) }

// PlanInput is a plan as an operator writes it.
type PlanInput struct {
	ID                    string // "" creates a plan
	Name                  string
	Providers             []string
	Models                []string
	MultiplierBP          int64
	IncludedMonthlyMicros int64
	BYOKFeeBP             int64
	// Defaults are the plan's default rate limits and concurrency cap.
	Defaults Limits
}

// SavePlan validates and stores a plan; it applies from each
// organisation's next request on this replica, within PlanTTL on others.
func (s *Service) SavePlan(ctx context.Context, in PlanInput, knownProvider func(string) bool) (*Plan, error) {
	in.Name = strings.TrimSpace(in.Name)
	switch {
	case in.Name == "" || len(in.Name) > 64:
		return nil, invalid("name", "must be 1 to 64 characters")
	case in.MultiplierBP <= 0 || in.MultiplierBP > 100*BasisPoints:
		return nil, invalid("multiplier_bp", "must be between 1 and 1000000 (10000 is 1x)")
	case in.IncludedMonthlyMicros < 0:
		return nil, invalid("included_monthly_micros", "must be 0 or more")
	case in.BYOKFeeBP < 0 || in.BYOKFeeBP > BasisPoints:
		return nil, invalid("byok_fee_bp", "must be between 0 and 10000 (100%)")
	case in.Defaults.RPM < 0 || in.Defaults.RPM > MaxLimit:
		return nil, invalid("default_rpm", fmt.Sprintf("must be 0 (none) to %d", MaxLimit))
	case in.Defaults.TPM < 0 || in.Defaults.TPM > MaxLimit:
		return nil, invalid("default_tpm", fmt.Sprintf("must be 0 (none) to %d", MaxLimit))
	case in.Defaults.MaxConcurrency < 0 || in.Defaults.MaxConcurrency > MaxConcurrency:
		return nil, invalid("default_max_concurrency", fmt.Sprintf("must be 0 (none) to %d", MaxConcurrency))
	}
	for _, p := range in.Providers {
		if !knownProvider(p) {
			return nil, invalid("providers", fmt.Sprintf("%q is not a catalog provider", p))
		}
	}
	now := s.cfg.Now().UTC()
	p := &Plan{ID: in.ID, Name: in.Name, Providers: in.Providers, Models: in.Models, MultiplierBP: in.MultiplierBP,
		IncludedMonthlyMicros: in.IncludedMonthlyMicros, BYOKFeeBP: in.BYOKFeeBP, Defaults: in.Defaults, CreatedAt: now, UpdatedAt: now}
	if p.ID == "" {
		p.ID = "plan_" + newID()
	} else if old, err := s.store.PlanByID(ctx, p.ID); err != nil {
		return nil, err
	} else {
		p.CreatedAt = old.CreatedAt
	}
	if err := s.store.SavePlan(ctx, p); err != nil {
		return nil, err
	}
	s.plans.InvalidateAll() // any organisation may be on it
	return p, nil
}

// Plans lists the plans.
func (s *Service) Plans(ctx context.Context) ([]Plan, error) { return s.store.Plans(ctx) }

// AssignPlan gives orgID the plan planID from its next request.
func (s *Service) AssignPlan(ctx context.Context, orgID, planID string) error {
	if _, err := s.store.PlanByID(ctx, planID); err != nil {
		return err
	}
	if err := s.store.SetOrgPlan(ctx, orgID, planID, s.cfg.Now().UTC()); err != nil {
		return err
	}
	s.plans.Invalidate(orgID)
	return nil
}

// OrgPlan returns orgID's plan, or nil when it has none (then no platform
// credential serves it). Once per month it grants the plan's included
// credit (idempotent by reference across replicas).
func (s *Service) OrgPlan(ctx context.Context, orgID string) (*Plan, error) {
	p, err := s.plans.Get(ctx, orgID, func(ctx context.Context) (*Plan, error) { return s.store.OrgPlan(ctx, orgID) })
	if err != nil || p == nil || p.IncludedMonthlyMicros == 0 {
		return p, err
	}
	month := s.cfg.Now().UTC().Format("2006-01")
	key := orgID + "|" + p.ID + "|" + month
	s.mu.Lock()
	done := s.included[key]
	s.mu.Unlock()
	if done {
		return p, nil
	}
	_, _, err = s.store.Append(ctx, &Entry{ID: newID(), OrgID: orgID, Kind: KindGrant, AmountMicros: p.IncludedMonthlyMicros,
		Actor: "plan", Reason: "included monthly credit of plan " + p.Name, Reference: "included:" + month, CreatedAt: s.cfg.Now().UTC()})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.included[key] = true
	s.mu.Unlock()
	return p, nil
}

// CreditInput is an operator's (or payment provider's) ledger entry.
type CreditInput struct {
	OrgID        string
	Kind         Kind
	AmountMicros int64
	Actor        string
	Reason       string
	// Reference makes the entry idempotent: a second entry with the same
	// reference for the organisation is not added. Required for top-ups.
	Reference string
	RequestID string // refunds: the request refunded
}

// Credit appends a top-up, grant, refund or adjustment. It returns the
// stored entry and whether it was added now (false: the reference was seen).
func (s *Service) Credit(ctx context.Context, in CreditInput) (*Entry, bool, error) {
	in.Reason, in.Reference = strings.TrimSpace(in.Reason), strings.TrimSpace(in.Reference)
	switch in.Kind {
	case KindTopUp, KindGrant, KindRefund:
		if in.AmountMicros <= 0 {
			return nil, false, invalid("amount_micros", "must be a positive number of micro-dollars")
		}
	case KindAdjustment:
		if in.AmountMicros == 0 {
			return nil, false, invalid("amount_micros", "must not be 0")
		}
	default:
		return nil, false, invalid("kind", "must be topup, grant, refund or adjustment")
	}
	switch {
	case in.Kind == KindTopUp && in.Reference == "":
		return nil, false, invalid("reference", "a top-up needs the caller's reference (it makes the top-up idempotent)")
	case in.Kind == KindAdjustment && in.Reason == "":
		return nil, false, invalid("reason", "an adjustment needs a reason")
	case len(in.Reference) > 200 || len(in.Reason) > 500:
		return nil, false, invalid("reason", "reason is at most 500 and reference at most 200 characters")
	}
	e := &Entry{ID: newID(), OrgID: in.OrgID, Kind: in.Kind, AmountMicros: in.AmountMicros, Actor: in.Actor,
		Reason: in.Reason, Reference: in.Reference, RequestID: in.RequestID, CreatedAt: s.cfg.Now().UTC()}
	return s.store.Append(ctx, e)
}

// Account returns orgID's balance and reserved credit.
func (s *Service) Account(ctx context.Context, orgID string) (Account, error) {
	return s.store.Account(ctx, orgID)
}

// OrgSummaries lists every organisation with its plan, balance, what it
// spent this UTC month and its last activity.
func (s *Service) OrgSummaries(ctx context.Context) ([]OrgSummary, error) {
	now := s.cfg.Now().UTC()
	return s.store.OrgSummaries(ctx, time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC))
}

// Entries pages orgID's ledger.
func (s *Service) Entries(ctx context.Context, orgID string, q EntryQuery) ([]Entry, error) {
	if q.Limit <= 0 || q.Limit > 1000 {
		q.Limit = DefaultPage
	}
	return s.store.Entries(ctx, orgID, q)
}

// Reservations lists orgID's reservations in flight.
func (s *Service) Reservations(ctx context.Context, orgID string) ([]Reservation, error) {
	return s.store.Reservations(ctx, orgID)
}

package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// Config are a Service's settings.
type Config struct {
	// BaselineModel prices the savings of "auto" turns; it must be in the
	// catalog.
	BaselineModel string
	// DefaultAlpha is the quality/cost dial when neither the key nor the
	// organisation sets one.
	DefaultAlpha float64
	// MaxAttempts bounds a plan's attempts; 0 means the executor's default.
	MaxAttempts int
}

// Deps are the collaborators every turn needs. None may be nil: New
// refuses a Deps with a missing one.
type Deps struct {
	Catalog  *catalog.Catalog
	Codecs   Codecs
	Executor Executor
	Recorder Recorder
	// Routers gives each organisation its router and routing settings
	// (StaticRouters serves one router with default settings).
	Routers RouterSource
	// Classify maps errors to the status and code the caller got, for records.
	Classify ErrorCoder
	Logger   *slog.Logger
}

// Option adds an optional collaborator, most of them a stage of the
// pipeline; without it the stage is not in the pipeline at all.
type Option func(*options)

type options struct {
	guard     Guard
	cache     *routing.Cache
	pins      PinStore
	handover  routing.HandoverConfig
	content   ContentKeeper
	tenant    TenantModels
	providers ProviderSet
	credits   Credits
}

// WithGuard enforces rate limits and budgets (the admit stage); without
// it every turn is admitted.
func WithGuard(g Guard) Option { return func(o *options) { o.guard = g } }

// WithCache adds the user-scoped response cache (the cache lookup and store
// stages); a nil cache adds nothing.
func WithCache(c *routing.Cache) Option { return func(o *options) { o.cache = c } }

// WithPins keeps routed sessions on their model (the pin stage), with h
// configuring history summaries on a model switch.
func WithPins(p PinStore, h routing.HandoverConfig) Option {
	return func(o *options) { o.pins, o.handover = p, h }
}

// WithContent keeps opted-in organisations' prompts and answers (the
// content keep stage).
func WithContent(k ContentKeeper) Option { return func(o *options) { o.content = k } }

// WithTenantModels gives each organisation its own models (SPEC 4);
// without it no organisation has any.
func WithTenantModels(t TenantModels) Option { return func(o *options) { o.tenant = t } }

// WithProviders narrows routing and model lists to the providers an
// organisation can call; without it every provider counts as usable.
func WithProviders(p ProviderSet) Option { return func(o *options) { o.providers = p } }

// Service runs turns through the pipeline of stages built by New.
type Service struct {
	d      Deps
	cfg    Config
	policy policyStage
	route  routeStage
	plans  planner
	// in runs in order on the way in, until a stage answers the turn;
	// after runs in order once it was answered; end always runs last.
	in    []stage
	after []follower
	end   []finisher
	// embedIn and embedEnd are the embeddings pipeline (see Embed).
	embedIn  []stage
	embedEnd []finisher
}

// New returns a Service whose pipeline is, in order: scope, admit (with a
// Guard), decode, policy (aliases, allow and deny lists, tenant models,
// the route-all ceiling), plan (with Credits), content decision (with a ContentKeeper), cache
// lookup (with a cache), route, pin (with a PinStore), credits (with
// Credits), dispatch; then content keep, cache store and pin advance; then
// account, credit settlement (with Credits), settle (with a Guard) and
// record, which run for every turn.
func New(cfg Config, d Deps, opts ...Option) (*Service, error) {
	if d.Catalog == nil || d.Codecs == nil || d.Executor == nil || d.Recorder == nil || d.Routers == nil ||
		d.Classify == nil || d.Logger == nil {
		return nil, fmt.Errorf("%w: catalog, codecs, executor, recorder, routers, classify and logger are required", ErrConfig)
	}
	baseline, err := d.Catalog.Lookup(cfg.BaselineModel)
	if err != nil {
		return nil, fmt.Errorf("%w: baseline model %q: %w", ErrConfig, cfg.BaselineModel, err)
	}
	o := options{tenant: noTenantModels{}, providers: allProviders{}}
	for _, opt := range opts {
		opt(&o)
	}
	plans := planner{catalog: d.Catalog, maxAttempts: cfg.MaxAttempts}
	s := &Service{d: d, cfg: cfg, plans: plans}
	s.policy = policyStage{routers: d.Routers, catalog: d.Catalog, plans: plans, tenant: o.tenant, baseline: baseline}
	s.route = routeStage{catalog: d.Catalog, plans: plans, providers: o.providers, credits: o.credits, alpha: cfg.DefaultAlpha}
	guard := admitStage{guard: o.guard}
	s.in = append(s.in, scopeStage{})
	if o.guard != nil {
		s.in = append(s.in, guard)
	}
	s.in = append(s.in, decodeStage{codecs: d.Codecs}, s.policy)
	if o.credits != nil {
		s.in = append(s.in, planStage{credits: o.credits, catalog: d.Catalog})
	}
	if o.content != nil {
		keep := newContentStage(o.content, d.Logger)
		s.in, s.after = append(s.in, keep), append(s.after, keep)
	}
	if o.cache != nil {
		c := cacheStage{cache: o.cache, catalog: d.Catalog, logger: d.Logger}
		s.in, s.after = append(s.in, c), append(s.after, c)
	}
	s.in = append(s.in, s.route)
	if o.pins != nil {
		p := pinStage{pins: o.pins, catalog: d.Catalog, plans: plans, executor: d.Executor, handover: o.handover, logger: d.Logger, writes: newPinWrites()}
		s.in, s.after = append(s.in, p), append(s.after, p)
	}
	var credit creditStage
	if o.credits != nil {
		credit = creditStage{credits: o.credits, pricer: Pricer{Catalog: d.Catalog}}
		s.in = append(s.in, credit)
	}
	s.in = append(s.in, dispatchStage{executor: d.Executor})
	s.end = append(s.end, accountStage{pricer: Pricer{Catalog: d.Catalog}})
	if o.credits != nil {
		s.end = append(s.end, credit)
	}
	if o.guard != nil {
		s.end = append(s.end, guard)
	}
	s.end = append(s.end, recordStage{recorder: d.Recorder, classify: d.Classify})
	s.embedIn = append(s.embedIn, scopeStage{})
	if o.guard != nil {
		s.embedIn = append(s.embedIn, guard)
	}
	s.embedIn = append(s.embedIn, embedStage{codecs: d.Codecs, catalog: d.Catalog, routers: d.Routers, attempts: cfg.MaxAttempts})
	if o.credits != nil {
		s.embedIn = append(s.embedIn, credit)
	}
	s.embedIn = append(s.embedIn, embedDispatchStage{executor: d.Executor})
	s.embedEnd = s.end // account, credit settlement, settle, record
	return s, nil
}

// Codec returns the codec of format f.
func (s *Service) Codec(f llm.Format) llm.Codec { return s.d.Codecs[f] }

// Serve runs one turn and writes the answer to out. An error returned before
// out.Commit was called means nothing was written: the caller answers with an
// error in the caller's format. An error after Commit has already been
// reported to the client inside the stream.
func (s *Service) Serve(ctx context.Context, t *Turn, out Output) error {
	p := newPass(t, out)
	defer finishOnPanic(context.WithoutCancel(ctx), s.end, p)
	err := s.serve(ctx, p)
	for _, f := range s.end {
		f.finish(context.WithoutCancel(ctx), p, err)
	}
	return err
}

// errPanicked is what the finishers of a turn that panicked are told.
var errPanicked = errors.New("gateway: the turn panicked")

// finishOnPanic runs end for a turn that panicked (so its credit hold is
// settled or released, its budget and record kept, never left for the
// stale sweep), then lets the panic go on to the edge's recover.
func finishOnPanic(ctx context.Context, end []finisher, p *pass) {
	r := recover()
	if r == nil {
		return
	}
	for _, f := range end {
		f.finish(ctx, p, errPanicked)
	}
	panic(r)
}

func (s *Service) serve(ctx context.Context, p *pass) error {
	for _, st := range s.in {
		if err := st.run(ctx, p); err != nil {
			return err
		}
		if p.answered {
			break // by the cache: no routing, no upstream call
		}
	}
	for _, f := range s.after {
		f.follow(ctx, p)
	}
	return nil
}

// resolve runs the policy and route stages alone (no pins): the model a
// request would run on and its plan.
func (s *Service) resolve(ctx context.Context, c Caller, req *llm.Request, org orgRouting) (*resolution, error) {
	v, err := s.policy.decide(ctx, c, req, org)
	if err != nil {
		return nil, err
	}
	f, err := funding(ctx, s.route.credits, s.d.Catalog, c.OrgID)
	if err != nil {
		return nil, err
	}
	return s.route.resolve(ctx, c, req, v, org, f)
}

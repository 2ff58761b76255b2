package dispatch

import (
	"time"

	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/heddle-gw/heddle/llm"
)

// Executor runs operations along plans: the only code that calls providers.
// It is safe for concurrent use.
type Executor struct {
	cfg       Config
	providers map[string]Provider
	provFor   func(Target) Provider
	creds     Credentials
	codecs    map[llm.Format]llm.Codec
	sink      Sink
	idem      Idempotency
	pricer    Pricer
	clock     Clock
	rand      Rand
	log       *slog.Logger

	breakers *breakers
	orgCaps  *caps
	bindCaps *caps
	cache    targetCache
}

// NewExecutor builds an executor. cfg gets its defaults (call cfg.Validate
// first to reject bad values); nil optional deps get theirs (see Deps). The
// maps of deps are copied, so later changes by the caller do not leak in.
func NewExecutor(cfg Config, deps Deps) *Executor {
	cfg = cfg.WithDefaults()
	e := &Executor{
		cfg:       cfg,
		providers: copyMap(deps.Providers),
		provFor:   deps.ProviderFor,
		creds:     deps.Credentials,
		codecs:    copyMap(deps.Codecs),
		sink:      deps.Sink,
		idem:      deps.Idempotency,
		pricer:    deps.Pricer,
		clock:     deps.Clock,
		rand:      deps.Rand,
		log:       deps.Logger,
	}
	if e.clock == nil {
		e.clock = SystemClock{}
	}
	if e.rand == nil {
		e.rand = stdRand{}
	}
	if e.sink == nil {
		e.sink = discardSink{}
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.idem == nil {
		e.idem = NewMemoryIdempotency(cfg.IdempotencyWindow, e.clock, 0)
	}
	e.breakers = newBreakers(cfg.Breaker, e.clock)
	e.orgCaps = newCaps(cfg.OrgConcurrency, cfg.CapWait, e.clock)
	e.bindCaps = newCaps(cfg.BindingConcurrency, cfg.CapWait, e.clock)
	if w := deps.CapWait; w != nil {
		e.orgCaps.waited = func(d time.Duration, ok bool) { w("org", d, ok) }
		e.bindCaps.waited = func(d time.Duration, ok bool) { w("binding", d, ok) }
	}
	return e
}

func copyMap[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Run executes op along plan (SPEC §7) and returns the served result.
//
// Streaming operations write their events to out: held until the upstream's
// first content (the commit gate), then in order with a Flush after each. A
// failure after commit ends out with a canonical error event and returns an
// error wrapping ErrCommitted with Result.Committed set; it is never retried.
//
// Errors: ErrEmptyPlan, ErrBadOperation; ErrDuplicateInFlight and
// ErrIdempotencyMismatch (Idempotency-Key); ErrOverloaded (caps);
// ErrNotConfigured or ErrCircuitOpen when every target was skipped; an error
// wrapping *UpstreamError when an upstream refused the request in a way no
// other target can fix (auth, bad request); an *ExhaustedError (wrapping
// ErrAttemptsExhausted and the last failure) when the walk ran out; ctx's
// error when the caller went away. The Result is non-nil whenever a walk ran,
// error or not, and must not be modified. An idempotent duplicate gets a copy
// of the owner's Result with Shared set and no attempts of its own.
func (e *Executor) Run(ctx context.Context, meta Meta, plan Plan, op *Operation, out StreamWriter) (*Result, error) {
	if err := check(&plan, op, out); err != nil {
		return nil, err
	}
	if meta.IdempotencyKey == "" {
		return e.run(ctx, meta, &plan, op, out)
	}
	key := meta.OrgID + "\x00" + meta.KeyID + "\x00" + meta.IdempotencyKey
	fp := fingerprint(op)
	for {
		claim, err := e.idem.Begin(ctx, key, fp, op.Stream)
		if err != nil {
			return nil, err
		}
		if claim.Owner {
			res, err := e.run(ctx, meta, &plan, op, out)
			claim.Finish(res, err)
			return res, err
		}
		// The owner's caller went away: this caller is still here, so it
		// claims the key itself rather than inherit a cancellation.
		if errors.Is(claim.Err, context.Canceled) && ctx.Err() == nil {
			continue
		}
		return shared(claim), claim.Err
	}
}

// shared is a duplicate's copy of the owner's result, marked as shared: it
// made no attempt of its own, so nothing of it is billed twice.
func shared(c Claim) *Result {
	if c.Result == nil {
		return nil
	}
	res := *c.Result
	res.Attempts, res.Shared = 0, SharedReplay
	if c.Joined {
		res.Shared = SharedJoin
	}
	return &res
}

func check(plan *Plan, op *Operation, out StreamWriter) error {
	switch {
	case len(plan.Targets) == 0:
		return ErrEmptyPlan
	case op == nil:
		return fmt.Errorf("%w: nil operation", ErrBadOperation)
	case op.Request == nil && len(op.RawBody) == 0:
		return fmt.Errorf("%w: no request", ErrBadOperation)
	case op.Stream && out == nil:
		return fmt.Errorf("%w: streaming without a writer", ErrBadOperation)
	case plan.MaxAttempts < 0:
		return fmt.Errorf("%w: negative MaxAttempts", ErrBadOperation)
	}
	return nil
}

// fingerprint identifies the request an Idempotency-Key was first used with.
func fingerprint(op *Operation) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%t\x00", op.Inbound, op.Stream)
	if len(op.RawBody) > 0 {
		h.Write(op.RawBody)
	} else if err := json.NewEncoder(h).Encode(op.Request); err != nil {
		io.WriteString(h, err.Error())
	}
	return hex.EncodeToString(h.Sum(nil))
}

// run takes the organisation's concurrency slot and walks the plan.
func (e *Executor) run(ctx context.Context, meta Meta, plan *Plan, op *Operation, out StreamWriter) (*Result, error) {
	release, err := e.orgCaps.acquire(ctx, meta.OrgID, "", meta.OrgConcurrency)
	if err != nil {
		return nil, fmt.Errorf("dispatch: organisation concurrency: %w", err)
	}
	defer release()
	w := newWalk(ctx, e, meta, plan, op, out)
	return w.run()
}

// Circuits returns the state of orgID's circuit breakers on this replica
// (breakers are in process), one per provider binding and credential that
// answered at least once.
func (e *Executor) Circuits(orgID string) []Circuit { return e.breakers.circuits(orgID) }

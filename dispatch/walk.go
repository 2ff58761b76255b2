package dispatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// walk is the state of one operation walking its plan.
type walk struct {
	e     *Executor
	ctx   context.Context
	meta  Meta
	prov  Provenance
	plan  *Plan
	op    *Operation
	out   StreamWriter
	start time.Time

	max      int // real attempts allowed
	attempts int // real attempts made
	seq      int // index of the next event
	skips    map[Reason]bool
	seen     []TargetKey // target keys the walk reached (few: a slice, over seenBuf)
	seenBuf  [2]TargetKey
	passed   map[TargetKey]bool // target keys recorded as skipped ahead (see passOver)
	noCreds  map[string]bool    // provider -> the organisation cannot call it
	last     *failure
	res      Result
}

// step says how the walk goes on after a target.
type step int

const (
	stepNext step = iota // move on to the next target
	stepStop             // stop the walk with the error at hand
	stepDone             // served
)

func newWalk(ctx context.Context, e *Executor, meta Meta, plan *Plan, op *Operation, out StreamWriter) *walk {
	w := &walk{e: e, ctx: ctx, meta: meta, prov: meta.Provenance, plan: plan, op: op, out: out,
		start: e.clock.Now(), max: plan.MaxAttempts}
	w.seen = w.seenBuf[:0]
	if w.max == 0 {
		w.max = e.cfg.MaxAttempts
	}
	if w.prov.Purpose == "" {
		w.prov.Purpose = op.Purpose
	}
	if w.prov.Purpose == "" {
		w.prov.Purpose = PurposeMain
	}
	return w
}

func (w *walk) run() (*Result, error) {
	targets := w.plan.Targets
	if w.plan.Bound {
		targets = targets[:1]
	} else {
		targets = w.e.cache.order(w.meta.OrgID, targets)
	}
	for i, t := range targets {
		if w.attempts >= w.max {
			// A target already known unusable is reported as such, as it
			// would have been with attempts left.
			r := ReasonBudgetExhausted
			if no, known := w.noCreds[t.Provider]; known && no {
				r = ReasonProviderNotConfigured
			}
			w.skip(t, "", r)
			continue
		}
		w.res.FallbackUsed = i > 0
		w.passOver(t)
		if k := t.Key(); !slices.Contains(w.seen, k) {
			w.seen = append(w.seen, k)
		}
		switch st, err := w.target(t); st {
		case stepDone:
			return &w.res, nil
		case stepStop:
			return &w.res, err
		}
	}
	w.res.FallbackUsed = false
	return &w.res, w.exhausted()
}

// target runs the attempts on one target: the first, then same-target retries.
func (w *walk) target(t Target) (step, error) {
	e := w.e
	prov := e.providers[t.Provider]
	if prov == nil && e.provFor != nil {
		prov = e.provFor(t)
	}
	if prov == nil {
		w.skip(t, "", ReasonProviderNotConfigured)
		return stepNext, nil
	}
	for n := 0; ; n++ {
		cred, err := e.creds.Resolve(w.ctx, w.meta.OrgID, t.Provider)
		switch {
		case errors.Is(err, ErrNotConfigured):
			w.skip(t, "", ReasonProviderNotConfigured)
			return stepNext, nil
		case err != nil && w.ctx.Err() != nil:
			w.abort(t, "")
			return stepStop, fmt.Errorf("dispatch: resolve credential: %w", w.ctx.Err())
		case err != nil:
			w.fail(t, "", &failure{reason: ReasonPrepare, err: fmt.Errorf("dispatch: resolve credential: %w", err)}, 0)
			return stepNext, nil
		}
		bkey := breakerKey(t, cred.ID)
		ckey := circuitKey{pair: bkey, org: w.meta.OrgID}
		cown := owner{target: t, cred: cred.ID}
		e.breakers.track(ckey, cown)
		if !e.breakers.allow(ckey) {
			if !w.passed[t.Key()] {
				w.skip(t, cred.ID, ReasonCircuitOpen)
			}
			return stepNext, nil
		}
		release, err := e.bindCaps.acquire(w.ctx, bkey, w.meta.OrgID, 0)
		if err != nil {
			e.breakers.record(ckey, cown, false, false)
			if w.ctx.Err() != nil {
				w.abort(t, cred.ID)
				return stepStop, fmt.Errorf("dispatch: binding concurrency: %w", w.ctx.Err())
			}
			w.skip(t, cred.ID, ReasonOverloaded)
			return stepNext, nil
		}
		began := e.clock.Now()
		a := w.attempt(t, prov, cred, began)
		release()
		if a.sent {
			w.attempts++
			w.res.Attempts = w.attempts
		}
		if a.fail == nil {
			e.breakers.record(ckey, cown, true, true)
			e.cache.served(w.meta.OrgID, t)
			w.served(t, cred.ID, a, e.clock.Now().Sub(began))
			return stepDone, nil
		}
		f := a.fail
		// A shutdown says nothing about the binding's health.
		e.breakers.record(ckey, cown, false, breakerFailure(f.reason) && f.cause != ReasonShutdown)
		e.cache.failed(w.meta.OrgID, t)
		w.failed(t, cred.ID, a, e.clock.Now().Sub(began))
		w.last = f
		switch f.reason {
		case ReasonCommitted:
			return stepStop, fmt.Errorf("%w: %s/%s: %w", ErrCommitted, t.Provider, t.Upstream, f.err)
		case ReasonCanceled, ReasonShutdown:
			cause := f.err // the client's writer failed
			if w.ctx.Err() != nil {
				cause = context.Cause(w.ctx)
			}
			return stepStop, fmt.Errorf("dispatch: %s/%s: %w", t.Provider, t.Upstream, cause)
		case ReasonTargetMismatch:
			return stepStop, f.err
		}
		single := func() bool { return w.sole(t) }
		if d, ok := e.retryDelay(*f, single, n, e.clock.Now().Sub(w.start), w.max-w.attempts); ok {
			if err := e.clock.Sleep(w.ctx, d); err != nil {
				return stepStop, fmt.Errorf("dispatch: retry backoff: %w", err)
			}
			continue
		}
		if f.terminal || !failoverable(f.reason) {
			return stepStop, fmt.Errorf("dispatch: %s/%s: %w", t.Provider, t.Upstream, f.err)
		}
		// A bound plan walks only its first target, so moving on ends it.
		return stepNext, nil
	}
}

// sole reports whether t is the only target of the plan the organisation
// can use: a bound or one-target plan, or one whose other targets all name a
// provider that is not wired or that the organisation has no credential for.
// Such a plan is single-target for retries; the walk still visits (and
// reports as skipped) the unusable targets once t is given up.
func (w *walk) sole(t Target) bool {
	if w.plan.Bound || len(w.plan.Targets) == 1 {
		return true
	}
	for _, o := range w.plan.Targets {
		if o.Key() != t.Key() && w.usable(o) {
			return false
		}
	}
	return true
}

// usable reports whether the walk could call o: its provider is wired and
// the organisation has a credential for it. A credential lookup that fails
// otherwise counts as usable, so no retry is added on a doubt.
func (w *walk) usable(o Target) bool {
	if no, ok := w.noCreds[o.Provider]; ok {
		return !no
	}
	no := w.e.providers[o.Provider] == nil && (w.e.provFor == nil || w.e.provFor(o) == nil)
	if !no {
		_, err := w.e.creds.Resolve(w.ctx, w.meta.OrgID, o.Provider)
		no = errors.Is(err, ErrNotConfigured)
	}
	if w.noCreds == nil {
		w.noCreds = make(map[string]bool, 2)
	}
	w.noCreds[o.Provider] = no
	return !no
}

// exhausted is the error of a walk that ran out of targets or attempts.
func (w *walk) exhausted() error {
	if w.attempts == 0 && (w.last == nil || w.last.reason != ReasonPrepare) {
		switch {
		case w.skips[ReasonCircuitOpen]:
			return ErrCircuitOpen
		case w.skips[ReasonOverloaded]:
			return ErrOverloaded
		case w.skips[ReasonProviderNotConfigured]:
			return ErrNotConfigured
		}
	}
	ex := &ExhaustedError{Attempts: w.attempts}
	if w.last != nil {
		ex.Last = w.last.err
	}
	return ex
}

// ExhaustedError ends a walk that ran out of targets or attempts without a
// served answer. It matches ErrAttemptsExhausted and unwraps to the last
// attempt's error (often an *UpstreamError) for errors.Is/As.
type ExhaustedError struct {
	Attempts int
	Last     error
}

func (e *ExhaustedError) Error() string {
	if e.Last == nil {
		return fmt.Sprintf("%v after %d attempts", ErrAttemptsExhausted, e.Attempts)
	}
	return fmt.Sprintf("%v after %d attempts: %v", ErrAttemptsExhausted, e.Attempts, e.Last)
}

// Unwrap returns ErrAttemptsExhausted and the last attempt's error.
func (e *ExhaustedError) Unwrap() []error {
	if e.Last == nil {
		return []error{ErrAttemptsExhausted}
	}
	return []error{ErrAttemptsExhausted, e.Last}
}

// passOver records, before the target cache's remembered target t is tried,
// the targets of t's model that the plan put ahead of it and whose circuit
// is open: they are skipped (circuit_open) as surely as if the walk had
// reached them, and the timeline shows them. Each is recorded once.
func (w *walk) passOver(t Target) {
	for _, o := range w.plan.Targets {
		if o.Key() == t.Key() {
			return // the targets ahead of t in the plan were reached or passed over
		}
		if o.Model != t.Model || slices.Contains(w.seen, o.Key()) || w.passed[o.Key()] || !w.e.breakers.openFor(w.meta.OrgID, o) {
			continue
		}
		if w.passed == nil {
			w.passed = make(map[TargetKey]bool, 2)
		}
		w.passed[o.Key()] = true
		w.skip(o, "", ReasonCircuitOpen)
	}
}

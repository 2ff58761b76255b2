package dispatch

import (
	"sort"
	"sync"
	"time"
)

// breakerState is a circuit state.
type breakerState int

const (
	breakerClosed breakerState = iota
	breakerOpen
	breakerHalfOpen
)

// breakerBuckets is how many slices the ratio window is cut into.
const breakerBuckets = 10

// breakers holds one circuit breaker per (target, credential, organisation).
// A credential several organisations use (a platform credential) thus has a
// breaker per organisation, so one organisation's failures (its prompts
// timing out, its traffic rate-limited) open the circuit for it alone; a
// true upstream outage, seen as open breakers of sharedOutageOrgs
// organisations or more on the pair, opens it for every organisation until
// those cool down (see allow).
type breakers struct {
	cfg   BreakerConfig
	clock Clock
	mu    sync.Mutex
	m     map[circuitKey]*breaker
	// owners names, by breaker, the organisation, target and credential it
	// guards (see track), for Circuits and openFor.
	owners map[circuitKey]owner
	// opened holds, by pair, when each organisation's breaker on it last
	// opened (removed once it closes), for the shared-outage rule.
	opened map[string]map[string]time.Time
	// sweepAt is the owners count at which track next drops idle breakers
	// (see sweep).
	sweepAt int
}

// minBreakerSweep is the fewest breakers kept before idle ones are dropped.
const minBreakerSweep = 4096

// sharedOutageOrgs is how many organisations' breakers on one pair must be
// open (and cooling down) for the pair to count as down for every
// organisation using it: one is that organisation's own trouble, two or more
// independent ones an upstream outage.
const sharedOutageOrgs = 2

// circuitKey identifies one breaker: a pair (breakerKey) and an
// organisation.
type circuitKey struct{ pair, org string }

type owner struct {
	target Target
	cred   string
}

type breaker struct {
	state       breakerState
	consecutive int
	openedAt    time.Time
	probing     bool
	buckets     [breakerBuckets]bucket
}

type bucket struct {
	start     time.Time
	successes int
	failures  int
}

func newBreakers(cfg BreakerConfig, clock Clock) *breakers {
	return &breakers{cfg: cfg, clock: clock, m: make(map[circuitKey]*breaker), owners: make(map[circuitKey]owner),
		opened: make(map[string]map[string]time.Time)}
}

// breakerKey names a (target, credential) pair (breakers, binding caps).
func breakerKey(t Target, credID string) string {
	return t.Provider + "|" + t.Upstream + "|" + t.BaseURL + "|" + credID
}

// allow reports whether an attempt may go to key now: not while its breaker
// is open and cooling down, nor while the pair is down for every
// organisation (sharedDown). In the half-open state it lets exactly one
// probe through; the caller must then call record.
func (bs *breakers) allow(key circuitKey) bool {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b := bs.m[key]
	if b == nil || b.state == breakerClosed {
		return !bs.sharedDown(key.pair, bs.clock.Now())
	}
	switch b.state {
	case breakerOpen:
		if bs.clock.Now().Sub(b.openedAt) < bs.cfg.Cooldown {
			return false
		}
		b.state = breakerHalfOpen
		b.probing = true
		return true
	case breakerHalfOpen:
		if b.probing {
			return false
		}
		b.probing = true
		return true
	}
	return true
}

// sharedDown reports whether sharedOutageOrgs organisations' breakers on
// pair opened within the cool-down.
func (bs *breakers) sharedDown(pair string, now time.Time) bool {
	n := 0
	for _, at := range bs.opened[pair] {
		if now.Sub(at) < bs.cfg.Cooldown {
			n++
		}
	}
	return n >= sharedOutageOrgs
}

// open opens b, the breaker of key, at now.
func (bs *breakers) open(key circuitKey, b *breaker, now time.Time) {
	b.state, b.openedAt = breakerOpen, now
	if bs.opened[key.pair] == nil {
		bs.opened[key.pair] = map[string]time.Time{}
	}
	bs.opened[key.pair][key.org] = now
}

// record reports an attempt's end to key's breaker, which guards o (as
// track noted). counted says whether the result speaks to the pair's health
// (a client cancellation does not); an uncounted result still ends a
// half-open probe.
func (bs *breakers) record(key circuitKey, o owner, ok, counted bool) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b := bs.m[key]
	if b == nil {
		if !counted {
			return
		}
		b = &breaker{}
		bs.m[key] = b
		if _, ok := bs.owners[key]; !ok {
			// A sweep while the call was in flight dropped its owner.
			bs.owners[key] = o
		}
	}
	now := bs.clock.Now()
	if b.state == breakerHalfOpen {
		b.probing = false
		switch {
		case ok:
			*b = breaker{}
			delete(bs.opened[key.pair], key.org)
		case counted:
			bs.open(key, b, now)
		}
		return
	}
	if !counted {
		return
	}
	cur := b.bucket(now, bs.cfg.Window)
	if ok {
		cur.successes++
		b.consecutive = 0
		return
	}
	cur.failures++
	b.consecutive++
	if b.state == breakerClosed && bs.shouldOpen(b, now) {
		bs.open(key, b, now)
	}
}

func (bs *breakers) shouldOpen(b *breaker, now time.Time) bool {
	if b.consecutive >= bs.cfg.ConsecutiveFailures {
		return true
	}
	var succ, fail int
	for _, k := range b.buckets {
		if now.Sub(k.start) < bs.cfg.Window {
			succ += k.successes
			fail += k.failures
		}
	}
	total := succ + fail
	return total >= bs.cfg.MinRequests && float64(fail) >= bs.cfg.FailureRatio*float64(total)
}

// bucket returns the bucket of now, recycling a stale one.
func (b *breaker) bucket(now time.Time, window time.Duration) *bucket {
	width := window / breakerBuckets
	if width <= 0 {
		width = 1
	}
	start := now.Truncate(width)
	k := &b.buckets[int(start.UnixNano()/int64(width))%breakerBuckets]
	if !k.start.Equal(start) {
		*k = bucket{start: start}
	}
	return k
}

// track notes, once per breaker, which target and credential key guards.
func (bs *breakers) track(key circuitKey, o owner) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if _, ok := bs.owners[key]; !ok {
		bs.owners[key] = o
		if len(bs.owners) >= max(bs.sweepAt, minBreakerSweep) {
			bs.sweep(bs.clock.Now(), key)
			bs.sweepAt = 2 * len(bs.owners)
		}
	}
}

// sweep drops the owners of no breaker (but keep's, tracked now; record
// notes the owner again of a call in flight that then makes one) and the
// breakers (and their owners) that act as none at all: a
// closed one that counts no consecutive failures, or an open (or half-open,
// no probe in flight) one whose cool-down has passed, either of them
// having seen no call within the window. So neither the breakers of every
// organisation that ever used a pair nor those of one that failed and left
// are kept for good. A dropped open breaker forgets its trip: the next call
// meets a closed circuit instead of a half-open probe, which is what its
// cool-down had come to anyway.
func (bs *breakers) sweep(now time.Time, keep circuitKey) {
	for k := range bs.owners {
		if _, ok := bs.m[k]; !ok && k != keep {
			delete(bs.owners, k) // its calls never counted; tracked again on the next one
		}
	}
	for k, b := range bs.m {
		switch {
		case b.state == breakerClosed && b.consecutive > 0:
			continue
		case b.state != breakerClosed && (b.probing || now.Sub(b.openedAt) < bs.cfg.Cooldown):
			continue
		}
		if !b.idle(now, bs.cfg.Window) {
			continue
		}
		delete(bs.m, k)
		delete(bs.owners, k)
		if o := bs.opened[k.pair]; o != nil {
			delete(o, k.org)
			if len(o) == 0 {
				delete(bs.opened, k.pair)
			}
		}
	}
}

// idle reports whether b counted no call within window before now.
func (b *breaker) idle(now time.Time, window time.Duration) bool {
	for _, c := range b.buckets {
		if !c.start.IsZero() && now.Sub(c.start) < window {
			return false
		}
	}
	return true
}

// openFor reports whether a breaker of org's on target t (any credential)
// is open and still cooling down, or the pair is down for every
// organisation, without changing any state.
func (bs *breakers) openFor(org string, t Target) bool {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	now := bs.clock.Now()
	for k, o := range bs.owners {
		if k.org != org || o.target.Key() != t.Key() {
			continue
		}
		if b := bs.m[k]; b != nil && b.state == breakerOpen && now.Sub(b.openedAt) < bs.cfg.Cooldown {
			return true
		}
		if bs.sharedDown(k.pair, now) {
			return true
		}
	}
	return false
}

// Circuit is the state of one circuit breaker: a provider binding (target)
// and credential of an organisation.
type Circuit struct {
	Model        string
	Provider     string
	Upstream     string
	CredentialID string
	State        string    // closed, open or half_open
	OpenedAt     time.Time // when it last opened; zero if it never did since it closed
	Consecutive  int       // consecutive counted failures
	// Shared says the circuit is open because several organisations'
	// breakers on this shared credential are (an upstream outage), not
	// because of this organisation's own failures.
	Shared bool
}

// circuits lists org's breakers, ordered by provider, upstream, credential.
func (bs *breakers) circuits(org string) []Circuit {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	var out []Circuit
	now := bs.clock.Now()
	for k, o := range bs.owners {
		b := bs.m[k]
		if k.org != org || b == nil {
			continue
		}
		c := Circuit{Model: o.target.Model, Provider: o.target.Provider, Upstream: o.target.Upstream,
			CredentialID: o.cred, State: "closed", Consecutive: b.consecutive}
		switch {
		case b.state == breakerOpen:
			c.State, c.OpenedAt = "open", b.openedAt
		case b.state == breakerHalfOpen:
			c.State, c.OpenedAt = "half_open", b.openedAt
		case bs.sharedDown(k.pair, now):
			c.State, c.Shared = "open", true // other organisations' breakers: an upstream outage
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Provider != b.Provider {
			return a.Provider < b.Provider
		}
		if a.Upstream != b.Upstream {
			return a.Upstream < b.Upstream
		}
		return a.CredentialID < b.CredentialID
	})
	return out
}

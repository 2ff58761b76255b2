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

// breakers holds one circuit breaker per (target key, credential id).
type breakers struct {
	cfg   BreakerConfig
	clock Clock
	mu    sync.Mutex
	m     map[string]*breaker
	// owners names, by breaker key and organisation, the organisation,
	// target and credential a breaker guards (see track), for Circuits and
	// openFor. A credential several organisations use (a platform
	// credential) has one breaker and an owner per organisation.
	owners map[ownerKey]owner
}

type ownerKey struct{ key, org string }

type owner struct {
	key    string // the breaker's
	org    string
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
	return &breakers{cfg: cfg, clock: clock, m: make(map[string]*breaker), owners: make(map[ownerKey]owner)}
}

func breakerKey(t Target, credID string) string { return t.Key() + "|" + credID }

// allow reports whether an attempt may go to key now. In the half-open state it
// lets exactly one probe through; the caller must then call record.
func (bs *breakers) allow(key string) bool {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b := bs.m[key]
	if b == nil {
		return true
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

// record reports an attempt's end to key's breaker. counted says whether the
// result speaks to the pair's health (a client cancellation does not);
// an uncounted result still ends a half-open probe.
func (bs *breakers) record(key string, ok, counted bool) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b := bs.m[key]
	if b == nil {
		if !counted {
			return
		}
		b = &breaker{}
		bs.m[key] = b
	}
	now := bs.clock.Now()
	if b.state == breakerHalfOpen {
		b.probing = false
		switch {
		case ok:
			*b = breaker{}
		case counted:
			b.state = breakerOpen
			b.openedAt = now
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
		b.state = breakerOpen
		b.openedAt = now
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

// track notes, once per organisation, whose pair key is.
func (bs *breakers) track(key, org string, t Target, credID string) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	k := ownerKey{key, org}
	if _, ok := bs.owners[k]; !ok {
		bs.owners[k] = owner{key: key, org: org, target: t, cred: credID}
	}
}

// openFor reports whether a breaker of org's on target t (any credential)
// is open and still cooling down, without changing its state.
func (bs *breakers) openFor(org string, t Target) bool {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	now := bs.clock.Now()
	for _, o := range bs.owners {
		if o.org != org || o.target.Key() != t.Key() {
			continue
		}
		if b := bs.m[o.key]; b != nil && b.state == breakerOpen && now.Sub(b.openedAt) < bs.cfg.Cooldown {
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
}

// circuits lists org's breakers, ordered by provider, upstream, credential.
func (bs *breakers) circuits(org string) []Circuit {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	var out []Circuit
	for _, o := range bs.owners {
		b := bs.m[o.key]
		if o.org != org || b == nil {
			continue
		}
		c := Circuit{Model: o.target.Model, Provider: o.target.Provider, Upstream: o.target.Upstream,
			CredentialID: o.cred, State: "closed", Consecutive: b.consecutive}
		switch b.state {
		case breakerOpen:
			c.State, c.OpenedAt = "open", b.openedAt
		case breakerHalfOpen:
			c.State, c.OpenedAt = "half_open", b.openedAt
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

package tenancy

import (
	"net/netip"
	"strings"
	"sync"
	"time"
)

// LoginLimitConfig configures a LoginLimiter; zero values take the defaults.
type LoginLimitConfig struct {
	// PerIP bounds every attempt from one client address (log-in, sign-up,
	// invitation acceptance), right or wrong. Default 30 per minute, burst 10.
	PerIP Rate
	// PerEmail is the failure budget of one account, summed over every
	// address: while it is spent the account is guarded (see LoginLimiter).
	// Default 5 per minute, burst 5.
	PerEmail Rate
	// AddressFailures is how many failed log-ins (on any accounts) an address
	// makes before its own backoff starts. Default 10.
	AddressFailures int
	// Backoff is the first backoff, doubled on every further failure up to
	// MaxBackoff. Defaults 1 s and 15 min. A failure record is forgotten
	// after four MaxBackoffs without failures.
	Backoff, MaxBackoff time.Duration
	// PerIPOrgs bounds the organisations one address creates (sign-up and
	// "create organisation"). Default 10 per hour, burst 10.
	PerIPOrgs Rate
	MaxKeys   int
	Now       func() time.Time
}

// LoginLimiter throttles log-in guessing without handing an attacker a way
// to lock the account's owner out. It is one replica's view, safe for
// concurrent use. The scheme:
//
//   - Address rate: every attempt from an address takes a token of PerIP.
//   - Address backoff: after AddressFailures failed log-ins from an address
//     (any accounts), each further failure bars that address for a backoff
//     that doubles from Backoff up to MaxBackoff.
//   - Account guard: every failed log-in on an account, from any address,
//     takes a token of the account's PerEmail budget. A failure that finds
//     the budget spent marks the pair (address, account) suspect, and from
//     then on each failure of a suspect pair bars that pair, for that
//     account only, for a doubling backoff. A success clears the pair.
//
// Per-account throttling therefore only ever applies to addresses that have
// themselves failed on the account: the owner's correct password from an
// address that has not failed always passes, however many failures others
// caused (an attacker behind the owner's own address is indistinguishable
// from the owner and shares its limits). An attacker spread over many
// addresses is still bounded per account: once the account's budget is
// spent, each address gets one wrong guess on it before its pair backoff
// starts, so the guesses an account absorbs are about its budget plus one
// per fresh address per backoff period, instead of each address's own
// allowance.
//
// Callers call Allow before checking a password, then Failed or Succeeded
// with its outcome (Failed for unknown emails too, so both look alike).
type LoginLimiter struct {
	ip, email, orgs *Limiter
	cfg             LoginLimitConfig

	mu    sync.Mutex
	addrs map[string]*failures // by address
	pairs map[string]*failures // by address + "|" + email
}

// failures is a failure record: an address's failures (n) or a pair's
// failures while suspect, the last failure, and the end of the bar.
type failures struct {
	n, suspect int
	last       time.Time
	until      time.Time
}

// NewLoginLimiter returns a LoginLimiter.
func NewLoginLimiter(cfg LoginLimitConfig) *LoginLimiter {
	if cfg.PerIP.PerMinute <= 0 || cfg.PerIP.Burst <= 0 {
		cfg.PerIP = Rate{PerMinute: 30, Burst: 10}
	}
	if cfg.PerEmail.PerMinute <= 0 || cfg.PerEmail.Burst <= 0 {
		cfg.PerEmail = Rate{PerMinute: 5, Burst: 5}
	}
	if cfg.PerIPOrgs.PerMinute <= 0 || cfg.PerIPOrgs.Burst <= 0 {
		cfg.PerIPOrgs = Rate{PerMinute: 10.0 / 60, Burst: 10}
	}
	if cfg.AddressFailures <= 0 {
		cfg.AddressFailures = 10
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = time.Second
	}
	if cfg.MaxBackoff < cfg.Backoff {
		cfg.MaxBackoff = max(15*time.Minute, cfg.Backoff)
	}
	if cfg.MaxKeys <= 0 {
		cfg.MaxKeys = 100_000
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &LoginLimiter{
		ip:    NewLimiter(cfg.PerIP, cfg.MaxKeys, cfg.Now),
		email: NewLimiter(cfg.PerEmail, cfg.MaxKeys, cfg.Now),
		orgs:  NewLimiter(cfg.PerIPOrgs, cfg.MaxKeys, cfg.Now),
		cfg:   cfg,
		addrs: make(map[string]*failures),
		pairs: make(map[string]*failures),
	}
}

// Allow checks an attempt from ip, before any password is checked: the
// address's rate and backoff and, when email is set, the backoff of the
// pair (ip, email). It returns a *RateLimitError when the attempt must wait.
func (l *LoginLimiter) Allow(ip, email string) error {
	ip = clientKey(ip)
	if ok, wait := l.ip.Allow(ip); !ok {
		return &RateLimitError{RetryAfter: wait}
	}
	now := l.cfg.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	wait := l.barred(l.addrs, ip, now)
	if email = normalEmail(email); email != "" {
		wait = max(wait, l.barred(l.pairs, ip+"|"+email, now))
	}
	if wait > 0 {
		return &RateLimitError{RetryAfter: max(wait, time.Second)}
	}
	return nil
}

// Failed records a failed log-in from ip on email (a wrong password or an
// unknown email).
func (l *LoginLimiter) Failed(ip, email string) {
	ip = clientKey(ip)
	email = normalEmail(email)
	guarded := false
	if email != "" {
		ok, _ := l.email.Allow(email)
		guarded = !ok
	}
	now := l.cfg.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.record(l.addrs, ip, now)
	a.n++
	if a.n > l.cfg.AddressFailures {
		a.until = now.Add(l.backoff(a.n - l.cfg.AddressFailures))
	}
	if email == "" {
		return
	}
	p := l.record(l.pairs, ip+"|"+email, now)
	if guarded || p.suspect > 0 {
		p.suspect++
		p.until = now.Add(l.backoff(p.suspect))
	}
}

// Succeeded records a successful log-in: the pair (ip, email) starts
// afresh. The address's own failures stay (a success on one account must
// not wash out guessing on others).
func (l *LoginLimiter) Succeeded(ip, email string) {
	ip = clientKey(ip)
	l.mu.Lock()
	delete(l.pairs, ip+"|"+normalEmail(email))
	l.mu.Unlock()
}

// AllowOrg takes a token of ip's organisation-creation budget; it returns a
// *RateLimitError when that is spent.
func (l *LoginLimiter) AllowOrg(ip string) error {
	ip = clientKey(ip)
	if ok, wait := l.orgs.Allow(ip); !ok {
		return &RateLimitError{RetryAfter: wait}
	}
	return nil
}

// clientKey is the address a client is counted under: an IPv4 address (an
// IPv4-mapped IPv6 one unwrapped) as itself, an IPv6 address by its /64,
// the smallest block one subscriber is given, so rotating addresses inside
// it buys no fresh budget. Text that is no address is its own key.
func clientKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	p, _ := a.Prefix(64)
	return p.String()
}

// backoff is the k-th backoff (k >= 1): Backoff doubled k-1 times, capped.
func (l *LoginLimiter) backoff(k int) time.Duration {
	d := l.cfg.Backoff
	for i := 1; i < k && d < l.cfg.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, l.cfg.MaxBackoff)
}

// barred returns how long key must still wait in m (0 for not at all).
// The caller holds l.mu.
func (l *LoginLimiter) barred(m map[string]*failures, key string, now time.Time) time.Duration {
	f := m[key]
	if f == nil || !now.Before(f.until) {
		return 0
	}
	return f.until.Sub(now)
}

// record returns key's failure record in m, starting afresh when it was
// quiet for four MaxBackoffs. Memory stays bounded: a full map first drops
// records quiet that long, then everything. The caller holds l.mu.
func (l *LoginLimiter) record(m map[string]*failures, key string, now time.Time) *failures {
	forget := 4 * l.cfg.MaxBackoff
	f := m[key]
	if f != nil && now.Sub(f.last) > forget && !now.Before(f.until) {
		f = nil
	}
	if f == nil {
		if len(m) >= l.cfg.MaxKeys {
			for k, v := range m {
				if now.Sub(v.last) > forget && !now.Before(v.until) {
					delete(m, k)
				}
			}
			if len(m) >= l.cfg.MaxKeys {
				clear(m)
			}
		}
		f = &failures{}
		m[key] = f
	}
	f.last = now
	return f
}

func normalEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

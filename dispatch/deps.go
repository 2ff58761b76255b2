package dispatch

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/heddle-gw/heddle/llm"
)

// Deps are the collaborators of an Executor. Providers, Credentials and Codecs
// are required; the rest have defaults (see NewExecutor).
type Deps struct {
	// Providers maps a provider name (Target.Provider) to its adapter. One
	// adapter may serve several names. A name missing here counts as not
	// configured.
	Providers map[string]Provider
	// ProviderFor finds the adapter of a target whose provider is not in
	// Providers (an organisation's own endpoint, by its kind: e.g. an
	// OpenAI-compatible target with a BaseURL); nil, or nil returned, counts
	// as not configured. It must not block.
	ProviderFor func(t Target) Provider
	// Credentials resolves an organisation's credential per provider.
	Credentials Credentials
	// Codecs maps each wire format to its codec; the target guard reads a
	// body's model with the target format's codec (llm.Codec.ModelOf).
	Codecs map[llm.Format]llm.Codec
	// Sink receives attempt events; nil drops them. Wrap a slow sink in
	// AsyncSink.
	Sink Sink
	// Idempotency deduplicates operations with an Idempotency-Key; nil means an
	// in-process store with Config.IdempotencyWindow.
	Idempotency Idempotency
	// Pricer prices an attempt's usage for its event; nil leaves cost at 0.
	Pricer Pricer
	// Clock is the time source; nil means the system clock.
	Clock Clock
	// Rand draws backoff jitter; nil means math/rand/v2.
	Rand Rand
	// CapWait, when set, is told of every wait for a concurrency slot that
	// could not be taken at once: the scope ("org" or "binding"), how long the
	// wait lasted and whether it got the slot (false: ErrOverloaded). A wait
	// the caller cancelled is not reported. It must not block.
	CapWait func(scope string, waited time.Duration, acquired bool)
	// Logger receives operational logs (never secrets nor prompt text); nil
	// discards them.
	Logger *slog.Logger
}

// Pricer prices usage served by a target, in integer micro-dollars; the same
// pricer prices the request record, so attempt and request costs agree. It
// must not block.
type Pricer interface {
	CostMicros(t Target, u llm.Usage) int64
}

// Clock is the executor's time source, replaced by a fake in tests.
type Clock interface {
	Now() time.Time
	// Sleep waits for d or until ctx is done, returning ctx's error then.
	Sleep(ctx context.Context, d time.Duration) error
	// After returns a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
	// AfterFunc calls f in its own goroutine once d has passed, unless stopped.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a stoppable, resettable timer from Clock.AfterFunc.
type Timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// Rand draws jitter.
type Rand interface {
	// Float64 returns a number in [0, 1).
	Float64() float64
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits for d or until ctx is done.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// After returns time.After(d).
func (SystemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// AfterFunc returns time.AfterFunc(d, f).
func (SystemClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

type stdRand struct{}

func (stdRand) Float64() float64 { return rand.Float64() }

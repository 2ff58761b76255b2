package idemredis_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/idemredis"
	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/llm"
)

const testKey = "org-1\x00key-1\x00idem-1"

func sampleResult(text string) *dispatch.Result {
	return &dispatch.Result{
		Served:   dispatch.Target{Model: "m", Provider: "openai", Upstream: "gpt-x", Format: llm.FormatChat},
		Response: &llm.Response{ID: "r1", Model: "gpt-x", Content: []llm.Part{{Type: llm.PartText, Text: text}}, StopReason: llm.StopEnd, Usage: llm.Usage{Input: 3, Output: 2}},
		RawBody:  []byte(`{"id":"r1"}`),
		Usage:    llm.Usage{Input: 3, Output: 2},
		Attempts: 2, FallbackUsed: true, TTFB: 40 * time.Millisecond,
	}
}

func mustOwn(t *testing.T, s *idemredis.Store, key, fp string, stream bool) dispatch.Claim {
	t.Helper()
	c, err := s.Begin(context.Background(), key, fp, stream)
	if err != nil || !c.Owner || c.Finish == nil || c.Result != nil || c.Err != nil {
		t.Fatalf("Begin = %+v, %v; want an owner claim", c, err)
	}
	return c
}

// beginAsync starts Begin in a goroutine and returns its outcome channel.
func beginAsync(ctx context.Context, s *idemredis.Store, key, fp string, stream bool) <-chan outcome {
	ch := make(chan outcome, 1)
	go func() {
		c, err := s.Begin(ctx, key, fp, stream)
		ch <- outcome{c, err}
	}()
	return ch
}

type outcome struct {
	claim dispatch.Claim
	err   error
}

// scriptHook signals evaluated (without blocking) each time a script (a
// claim, a renewal) has run on the client it is added to.
type scriptHook struct{ evaluated chan struct{} }

func newScriptHook(rdb *redis.Client) scriptHook {
	h := scriptHook{evaluated: make(chan struct{}, 64)}
	rdb.AddHook(h)
	return h
}

func (h scriptHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h scriptHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		// A NOSCRIPT answer to EVALSHA is followed by EVAL: only a script
		// that ran counts.
		if n := cmd.Name(); (n == "evalsha" || n == "eval") && (err == nil || errors.Is(err, redis.Nil)) {
			if w, ok := ctx.Value(waitSpyKey{}).(*waitSpy); ok {
				w.armed.Store(true)
			}
			select {
			case h.evaluated <- struct{}{}:
			default:
			}
		}
		return err
	}
}

type waitSpyKey struct{}

// waitSpy is a context that tells when Begin waits: once a script has run
// under it (scriptHook arms it), the next look at Done is Begin's wait on
// the owner (its local flight or its poll timer); waiting closes then.
type waitSpy struct {
	context.Context
	armed   atomic.Bool
	once    sync.Once
	waiting chan struct{}
}

// newWaitSpy returns the spy and the context to pass to Begin.
func newWaitSpy() (*waitSpy, context.Context) {
	w := &waitSpy{Context: context.Background(), waiting: make(chan struct{})}
	return w, context.WithValue(w, waitSpyKey{}, w)
}

func (w *waitSpy) Done() <-chan struct{} {
	if w.armed.Load() {
		w.once.Do(func() { close(w.waiting) })
	}
	return w.Context.Done()
}

func (h scriptHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// renewals waits until key's TTL has gone up n times (each a lease renewal),
// failing if the key disappears first.
func renewals(t *testing.T, rdb *redis.Client, key string, n int) {
	t.Helper()
	last := rdb.PTTL(context.Background(), key).Val()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for seen := 0; seen < n; {
		<-tick.C
		ttl := rdb.PTTL(context.Background(), key).Val()
		if ttl <= 0 {
			t.Fatalf("the claim's key expired (PTTL %v) after %d renewals, waited for %d", ttl, seen, n)
		}
		if ttl > last {
			seen++
		}
		last = ttl
	}
}

// gone waits until key has expired.
func gone(t *testing.T, rdb *redis.Client, key string) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for rdb.Exists(context.Background(), key).Val() != 0 {
		<-tick.C
	}
}

func TestOwnerClaimIsALease(t *testing.T) {
	r := testdb.NewRedis(t)
	rdb, prefix := r.Client, r.Prefix
	const lease = 3 * time.Second
	s := idemredis.New(rdb, prefix, time.Minute, idemredis.WithLease(lease))
	c := mustOwn(t, s, testKey, "fp", false)
	key := onlyKey(t, rdb, prefix)
	h, err := rdb.HGetAll(context.Background(), key).Result()
	if err != nil || h["fp"] != "fp" || h["stream"] != "0" || h["state"] != "inflight" || len(h["owner"]) != 32 || h["result"] != "" {
		t.Fatalf("record = %v, %v", h, err)
	}
	renewals(t, rdb, key, 2) // past the first lease's first third twice: renewals keep it
	if ttl := rdb.PTTL(context.Background(), key).Val(); ttl <= 0 || ttl > lease {
		t.Fatalf("PTTL after renewals = %v, want within the lease", ttl)
	}
	c.Finish(nil, errors.New("boom"))
	if n := keyCount(t, rdb, prefix); n != 0 {
		t.Fatalf("%d keys after a failed finish, want 0", n)
	}
}

// TestDuplicates runs the rules of dispatch.Idempotency with the owner on
// one replica and the duplicate on another (or the same) replica.
func TestDuplicates(t *testing.T) {
	tests := []struct {
		name        string
		sameReplica bool
		ownerStream bool
		dupFP       string
		dupStream   bool
		dupKey      string
		finishErr   error // the owner's outcome; nil finishes with a result
		wantErr     error
		wantOwner   bool // the duplicate ends up running the operation
		wantShared  bool // the duplicate gets the owner's result
	}{
		{name: "join across replicas", dupFP: "fp", wantShared: true},
		{name: "join on the same replica", sameReplica: true, dupFP: "fp", wantShared: true},
		{name: "streaming duplicate of a streaming request", ownerStream: true, dupFP: "fp", dupStream: true, wantErr: dispatch.ErrDuplicateInFlight},
		{name: "streaming duplicate of a non-streaming request", dupFP: "fp", dupStream: true, wantErr: dispatch.ErrDuplicateInFlight},
		{name: "non-streaming duplicate of a streaming request", ownerStream: true, dupFP: "fp", wantErr: dispatch.ErrDuplicateInFlight},
		{name: "different body", dupFP: "other", wantErr: dispatch.ErrIdempotencyMismatch},
		{name: "another API key is independent", dupKey: "org-1\x00key-2\x00idem-1", dupFP: "other", wantOwner: true},
		{name: "owner failed across replicas: waiter runs", dupFP: "fp", finishErr: context.Canceled, wantOwner: true},
		{name: "owner failed on the same replica: waiter shares its outcome", sameReplica: true, dupFP: "fp", finishErr: context.Canceled, wantErr: context.Canceled, wantShared: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := testdb.NewRedis(t)
			rdb, prefix := r.Client, r.Prefix
			a := idemredis.New(rdb, prefix, time.Minute)
			dupClient := rdb
			if !tc.sameReplica {
				dupClient = testdb.DialRedis(t)
				t.Cleanup(func() { dupClient.Close() })
			}
			b := idemredis.New(dupClient, prefix, time.Minute)
			if tc.sameReplica {
				b = a
			}
			dupKey := testKey
			if tc.dupKey != "" {
				dupKey = tc.dupKey
			}
			owner := mustOwn(t, a, testKey, "fp", tc.ownerStream)
			newScriptHook(dupClient) // after the owner's claim: arms the duplicate's spy
			spy, ctx := newWaitSpy()
			ch := beginAsync(ctx, b, dupKey, tc.dupFP, tc.dupStream)
			want := sampleResult("once")
			var o outcome
			if tc.wantShared || tc.finishErr != nil {
				// The duplicate has read the owner's claim and waits on it.
				<-spy.waiting
				select {
				case o := <-ch:
					t.Fatalf("Begin returned %+v, %v while the owner runs", o.claim, o.err)
				default:
				}
				owner.Finish(want, tc.finishErr)
				o = <-ch
			} else {
				// Answered without the owner finishing.
				o = <-ch
				owner.Finish(want, tc.finishErr)
			}
			if o.claim.Owner {
				defer o.claim.Finish(nil, errors.New("cleanup"))
			}
			err := o.err
			if err == nil {
				err = o.claim.Err
			}
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("duplicate: err %v, want %v", err, tc.wantErr)
			}
			if o.claim.Owner != tc.wantOwner || (o.claim.Finish != nil) != tc.wantOwner {
				t.Fatalf("duplicate: Owner %v (Finish set %v), want %v", o.claim.Owner, o.claim.Finish != nil, tc.wantOwner)
			}
			if got := o.claim.Result; tc.wantShared != (got != nil) || (got != nil && !reflect.DeepEqual(got, want)) {
				t.Fatalf("duplicate: result %+v, want shared %v", got, tc.wantShared)
			}
			if tc.wantShared && tc.sameReplica && o.claim.Result != want {
				t.Fatal("same-replica joiner got a copy, want the owner's result")
			}
		})
	}
}

func TestStoredResultWindow(t *testing.T) {
	r := testdb.NewRedis(t)
	rdb, prefix := r.Client, r.Prefix
	const window = 30 * time.Second
	a := idemredis.New(rdb, prefix, window)
	b := idemredis.New(rdb, prefix, window)
	want := sampleResult("stored")
	claim := mustOwn(t, a, testKey, "fp", false)
	before := time.Now()
	claim.Finish(want, nil)

	key := onlyKey(t, rdb, prefix)
	// The TTL was set during Finish: what is left is the window less the time
	// since (and Redis's millisecond rounding), however slow the machine.
	ttl := rdb.PTTL(context.Background(), key).Val()
	if elapsed := time.Since(before); ttl < window-elapsed-5*time.Millisecond || ttl > window {
		t.Fatalf("PTTL of the stored result = %v, %v after Finish; want the %v window", ttl, elapsed, window)
	}
	for _, s := range []*idemredis.Store{a, b} {
		c, err := s.Begin(context.Background(), testKey, "fp", false)
		if err != nil || c.Owner || c.Err != nil || c.Finish != nil || !reflect.DeepEqual(c.Result, want) {
			t.Fatalf("repeat in the window = %+v, %v", c, err)
		}
	}
	if _, err := b.Begin(context.Background(), testKey, "other", false); !errors.Is(err, dispatch.ErrIdempotencyMismatch) {
		t.Fatalf("other body in the window: %v, want ErrIdempotencyMismatch", err)
	}
	if _, err := b.Begin(context.Background(), testKey, "fp", true); err != nil {
		t.Fatalf("streaming repeat of a stored result: %v", err) // stored results are served, not refused
	}

	// The window ends (brought forward, rather than waited out): the key is
	// free again.
	rdb.PExpire(context.Background(), key, time.Millisecond)
	gone(t, rdb, key)
	mustOwn(t, b, testKey, "fp", false).Finish(nil, errors.New("boom"))
}

func TestFinishFrees(t *testing.T) {
	tests := []struct {
		name   string
		stream bool
		res    *dispatch.Result
		err    error
		opts   []idemredis.Option
	}{
		{name: "failure", res: sampleResult("partial"), err: errors.New("upstream 400")},
		{name: "streaming success", stream: true, res: sampleResult("streamed")},
		{name: "nil result", res: nil},
		{name: "result over the size bound", res: sampleResult("big"), opts: []idemredis.Option{idemredis.WithMaxResultBytes(64)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := testdb.NewRedis(t)
			rdb, prefix := r.Client, r.Prefix
			s := idemredis.New(rdb, prefix, time.Minute, tc.opts...)
			mustOwn(t, s, testKey, "fp", tc.stream).Finish(tc.res, tc.err)
			if n := keyCount(t, rdb, prefix); n != 0 {
				t.Fatalf("%d keys after finish, want the key freed", n)
			}
			mustOwn(t, s, testKey, "fp", tc.stream).Finish(nil, errors.New("cleanup"))
		})
	}
}

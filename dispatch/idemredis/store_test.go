package idemredis_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/idemredis"
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

// stillWaiting fails if ch delivers within d.
func stillWaiting(t *testing.T, ch <-chan outcome, d time.Duration) {
	t.Helper()
	select {
	case o := <-ch:
		t.Fatalf("Begin returned %+v, %v while the owner runs", o.claim, o.err)
	case <-time.After(d):
	}
}

func TestOwnerClaimIsALease(t *testing.T) {
	rdb, prefix := openRedis(t)
	s := idemredis.New(rdb, prefix, time.Minute, idemredis.WithLease(900*time.Millisecond))
	c := mustOwn(t, s, testKey, "fp", false)
	key := onlyKey(t, rdb, prefix)
	h, err := rdb.HGetAll(context.Background(), key).Result()
	if err != nil || h["fp"] != "fp" || h["stream"] != "0" || h["state"] != "inflight" || len(h["owner"]) != 32 || h["result"] != "" {
		t.Fatalf("record = %v, %v", h, err)
	}
	time.Sleep(1500 * time.Millisecond) // past the first lease: renewals keep it
	if ttl := rdb.PTTL(context.Background(), key).Val(); ttl <= 0 || ttl > 900*time.Millisecond {
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
			rdb, prefix := openRedis(t)
			a := idemredis.New(rdb, prefix, time.Minute)
			b := idemredis.New(rdb, prefix, time.Minute)
			if tc.sameReplica {
				b = a
			}
			dupKey := testKey
			if tc.dupKey != "" {
				dupKey = tc.dupKey
			}
			owner := mustOwn(t, a, testKey, "fp", tc.ownerStream)
			ch := beginAsync(context.Background(), b, dupKey, tc.dupFP, tc.dupStream)
			if tc.wantShared || tc.finishErr != nil {
				stillWaiting(t, ch, 200*time.Millisecond)
			}
			want := sampleResult("once")
			var o outcome
			select {
			case o = <-ch:
				owner.Finish(want, tc.finishErr)
			case <-time.After(200 * time.Millisecond):
				owner.Finish(want, tc.finishErr)
				o = <-ch
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
	rdb, prefix := openRedis(t)
	const window = 700 * time.Millisecond
	a := idemredis.New(rdb, prefix, window)
	b := idemredis.New(rdb, prefix, window)
	want := sampleResult("stored")
	mustOwn(t, a, testKey, "fp", false).Finish(want, nil)

	key := onlyKey(t, rdb, prefix)
	if ttl := rdb.PTTL(context.Background(), key).Val(); ttl <= window-200*time.Millisecond || ttl > window {
		t.Fatalf("PTTL of the stored result = %v, want about %v", ttl, window)
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

	time.Sleep(window + 100*time.Millisecond)
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
			rdb, prefix := openRedis(t)
			s := idemredis.New(rdb, prefix, time.Minute, tc.opts...)
			mustOwn(t, s, testKey, "fp", tc.stream).Finish(tc.res, tc.err)
			if n := keyCount(t, rdb, prefix); n != 0 {
				t.Fatalf("%d keys after finish, want the key freed", n)
			}
			mustOwn(t, s, testKey, "fp", tc.stream).Finish(nil, errors.New("cleanup"))
		})
	}
}

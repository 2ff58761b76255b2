package idemredis_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/idemredis"
	"github.com/heddle-gw/heddle/internal/testdb"
)

// TestConcurrentBeginsAcrossReplicas: eight non-streaming duplicates split
// over two replicas yield exactly one owner; the other seven wait and get
// its result.
func TestConcurrentBeginsAcrossReplicas(t *testing.T) {
	r := testdb.NewRedis(t)
	rdb, prefix := r.Client, r.Prefix
	other := testdb.DialRedis(t)
	replicas := []*idemredis.Store{
		idemredis.New(rdb, prefix, time.Minute),
		idemredis.New(other, prefix, time.Minute),
	}
	hooks := []scriptHook{newScriptHook(rdb), newScriptHook(other)}
	want := sampleResult("one upstream call")
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		owners int
		got    []*dispatch.Result
		errs   []error
	)
	start := make(chan struct{})
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c, err := replicas[i%2].Begin(context.Background(), testKey, "fp", false)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil || c.Err != nil:
				errs = append(errs, errors.Join(err, c.Err))
			case c.Owner:
				owners++
				go func() {
					// Let the others queue up: all 8 have tried to claim.
					for range 8 {
						select {
						case <-hooks[0].evaluated:
						case <-hooks[1].evaluated:
						}
					}
					c.Finish(want, nil)
				}()
			default:
				got = append(got, c.Result)
			}
		}()
	}
	close(start)
	wg.Wait()
	if owners != 1 || len(errs) != 0 || len(got) != 7 {
		t.Fatalf("owners %d, errors %v, joined %d; want 1 owner and 7 joined", owners, errs, len(got))
	}
	for i, r := range got {
		if !reflect.DeepEqual(r, want) {
			t.Fatalf("joined %d got %+v", i, r)
		}
	}
}

// TestCrashedReplicaLeaseLapses: a replica that stops renewing (its Redis
// connection is gone) loses the key within a lease, and a waiting duplicate
// on another replica runs the operation.
func TestCrashedReplicaLeaseLapses(t *testing.T) {
	r := testdb.NewRedis(t)
	rdb, prefix := r.Client, r.Prefix
	const lease = 600 * time.Millisecond
	crashing := testdb.DialRedis(t)
	a := idemredis.New(crashing, prefix, time.Minute, idemredis.WithLease(lease))
	b := idemredis.New(rdb, prefix, time.Minute, idemredis.WithLease(lease))
	ownerA := mustOwn(t, a, testKey, "fp", false)
	hook := newScriptHook(rdb) // b's client: counts b's claim attempts
	began := time.Now()
	ch := beginAsync(context.Background(), b, testKey, "fp", false)
	<-hook.evaluated // b has read a's claim and waits
	select {
	case o := <-ch:
		t.Fatalf("Begin returned %+v, %v while the owner runs", o.claim, o.err)
	default:
	}
	crashing.Close()

	o := <-ch
	if o.err != nil || !o.claim.Owner || o.claim.Result != nil {
		t.Fatalf("waiter after the crash = %+v, %v; want to own the key", o.claim, o.err)
	}
	if waited := time.Since(began); waited > 3*lease {
		t.Fatalf("waiter took %v to take over, want within about one lease (%v)", waited, lease)
	}
	ownerA.Finish(sampleResult("late"), nil) // the crashed replica cannot touch b's claim
	h := rdb.HGetAll(context.Background(), onlyKey(t, rdb, prefix)).Val()
	if h["state"] != "inflight" || h["result"] != "" {
		t.Fatalf("record after the lost owner's finish = %v, want b's claim in flight", h)
	}
	want := sampleResult("b")
	o.claim.Finish(want, nil)
	c, err := a.Begin(context.Background(), testKey, "fp", false)
	if err == nil {
		t.Fatalf("crashed replica reached Redis: %+v", c)
	}
	c, err = b.Begin(context.Background(), testKey, "fp", false)
	if err != nil || c.Owner || !reflect.DeepEqual(c.Result, want) {
		t.Fatalf("repeat after b finished = %+v, %v", c, err)
	}
}

// TestLostOwnerDoesNotFreeNewClaim: when an owner's key was taken over, its
// failed finish leaves the new owner's claim alone.
func TestLostOwnerDoesNotFreeNewClaim(t *testing.T) {
	r := testdb.NewRedis(t)
	rdb, prefix := r.Client, r.Prefix
	a := idemredis.New(rdb, prefix, time.Minute)
	b := idemredis.New(rdb, prefix, time.Minute)
	old := mustOwn(t, a, testKey, "fp", false)
	rdb.Del(context.Background(), onlyKey(t, rdb, prefix)) // the lease lapsed
	cur := mustOwn(t, b, testKey, "fp", false)
	old.Finish(nil, errors.New("boom"))
	if n := keyCount(t, rdb, prefix); n != 1 {
		t.Fatalf("%d keys after the lost owner's finish, want b's claim kept", n)
	}
	if _, err := a.Begin(context.Background(), testKey, "fp", true); !errors.Is(err, dispatch.ErrDuplicateInFlight) {
		t.Fatalf("duplicate of b's claim: %v, want ErrDuplicateInFlight", err)
	}
	cur.Finish(nil, errors.New("cleanup"))
}

// TestWaitBoundedByContext: a duplicate waiting on another replica returns
// its ctx error and leaves the owner's claim in place.
func TestWaitBoundedByContext(t *testing.T) {
	r := testdb.NewRedis(t)
	rdb, prefix := r.Client, r.Prefix
	a := idemredis.New(rdb, prefix, time.Minute)
	b := idemredis.New(rdb, prefix, time.Minute, idemredis.WithPoll(5*time.Millisecond, 20*time.Millisecond))
	owner := mustOwn(t, a, testKey, "fp", false)
	defer owner.Finish(nil, errors.New("cleanup"))
	for _, s := range []*idemredis.Store{a, b} {
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		c, err := s.Begin(ctx, testKey, "fp", false)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || c.Owner || c.Result != nil {
			t.Fatalf("Begin = %+v, %v; want DeadlineExceeded", c, err)
		}
	}
	if n := keyCount(t, rdb, prefix); n != 1 {
		t.Fatalf("%d keys, want the owner's claim kept", n)
	}
}

func TestBadRecord(t *testing.T) {
	r := testdb.NewRedis(t)
	rdb, prefix := r.Client, r.Prefix
	s := idemredis.New(rdb, prefix, time.Minute)
	owner := mustOwn(t, s, testKey, "fp", false)
	defer owner.Finish(nil, errors.New("cleanup"))
	key := onlyKey(t, rdb, prefix)
	tests := []struct {
		name   string
		fields []any
	}{
		{"undecodable result", []any{"state", "done", "result", "{"}},
		{"done without a result", []any{"state", "done", "result", ""}},
		{"unknown state", []any{"state", "paused"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rdb.HSet(context.Background(), key, tc.fields...)
			if _, err := s.Begin(context.Background(), testKey, "fp", false); !errors.Is(err, idemredis.ErrBadRecord) {
				t.Fatalf("err = %v, want ErrBadRecord", err)
			}
		})
	}
}

package idemredis

import (
	"context"
	"sync"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
)

// own registers a claim this Store just took under token, starts renewing
// its lease and returns the owner's Claim.
func (s *Store) own(rkey, token string, stream bool) dispatch.Claim {
	f := &flight{token: token, done: make(chan struct{})}
	s.mu.Lock()
	s.local[rkey] = f
	s.mu.Unlock()

	stop := make(chan struct{})
	renewed := make(chan struct{})
	go s.renew(rkey, token, stop, renewed)

	var once sync.Once
	finish := func(res *dispatch.Result, err error) {
		once.Do(func() {
			close(stop)
			<-renewed
			s.finish(rkey, token, stream, res, err)
			s.mu.Lock()
			if s.local[rkey] == f {
				delete(s.local, rkey)
			}
			f.res, f.err = res, err
			s.mu.Unlock()
			close(f.done)
		})
	}
	return dispatch.Claim{Owner: true, Finish: finish}
}

// renew extends the lease every third of it until stop closes or the claim
// is lost. A failed renewal is retried at the next tick: the lease outlives
// two missed ticks.
func (s *Store) renew(rkey, token string, stop <-chan struct{}, renewed chan<- struct{}) {
	defer close(renewed)
	t := time.NewTicker(s.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
		n, err := renewScript.Run(ctx, s.rdb, []string{rkey}, token, s.lease.Milliseconds()).Int()
		cancel()
		if err != nil {
			s.log.Warn("idempotency lease renewal failed", "key", rkey, "err", err)
			continue
		}
		if n == 0 {
			s.log.Warn("idempotency claim lost before finish", "key", rkey)
			return
		}
	}
}

// finish stores a successful non-streaming result for the window, else frees
// the key; both only while token still owns it.
func (s *Store) finish(rkey, token string, stream bool, res *dispatch.Result, err error) {
	var body []byte
	if err == nil && !stream && res != nil {
		b, encErr := encodeResult(res)
		switch {
		case encErr != nil:
			s.log.Warn("idempotency result not stored", "key", rkey, "err", encErr)
		case len(b) > s.maxResult:
			s.log.Warn("idempotency result too large to store", "key", rkey, "bytes", len(b))
		default:
			body = b
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), finishTimeout)
	defer cancel()
	if rerr := finishScript.Run(ctx, s.rdb, []string{rkey}, token, string(body), s.window.Milliseconds()).Err(); rerr != nil {
		s.log.Warn("idempotency finish failed; the key frees when its lease lapses", "key", rkey, "err", rerr)
	}
}

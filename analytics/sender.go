package analytics

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// send is the inserter: it inserts the backlog's oldest batch, pops it once
// the store accepted it, and otherwise retries with exponential backoff.
// After MaxRetries failures (at once while closing, or when the store says
// it is unavailable) the in-memory batches
// move to the spill, keeping their order. It ends when the batcher is done
// and the backlog is empty, when MaxRetries tries made since Close began
// failed in a row (the rows are then in the spill), or on abort. Failures
// from before Close do not count towards that: the store may be back by
// then, and Close tries it again, backing off from RetryBase.
func (w *Writer) send() {
	defer close(w.senderDone)
	q := w.backlog.Load()
	defer func() {
		// The batcher's last pushes must land before the spill closes; it
		// only drains the queue, so this wait is short.
		<-w.collectorDone
		lost, err := q.close()
		if lost > 0 || err != nil {
			w.dropped.Add(int64(lost))
			w.lost.Add(int64(lost))
			w.log.ErrorContext(w.insertCtx, "analytics rows lost at close", "rows", lost, "err", err)
		}
		// The syncer's last fsyncs of sealed journal files are the last
		// touches of the directory; the next Writer may take it after.
		<-w.syncerDone
		w.lock.release()
	}()
	// fails counts the failed tries in a row; closeFails those of them
	// begun after Close.
	fails, closeFails := 0, 0
	for {
		if w.isAborted() {
			return
		}
		b, ok, err := q.front()
		if err != nil {
			w.log.ErrorContext(w.insertCtx, "analytics spill unreadable", "err", err)
			if !w.sleep(w.backoff(1)) {
				return
			}
			continue
		}
		if !ok {
			select {
			case <-q.notify:
			case <-w.aborted:
				return
			case <-w.collectorDone:
				if _, more, _ := q.front(); !more {
					return
				}
			}
			continue
		}
		closing := w.isClosing()
		err = w.insert(b)
		if err == nil {
			if q.pop(b) {
				w.reuse(b)
			}
			if fails > 0 {
				w.log.InfoContext(w.insertCtx, "analytics store recovered", "failed_tries", fails)
			}
			fails, closeFails = 0, 0
			continue
		}
		fails++
		if closing {
			closeFails++
		}
		w.failures.Add(1)
		if fails == 1 {
			w.log.WarnContext(w.insertCtx, "analytics insert failed, retrying", "rows", b.rows(), "err", err)
		}
		if fails >= w.cfg.MaxRetries || w.isClosing() || errors.Is(err, ErrUnavailable) {
			if err := q.spillMemory(); err != nil {
				w.log.ErrorContext(w.insertCtx, "analytics spill failed", "err", err)
			}
		}
		if closeFails >= w.cfg.MaxRetries && q.onDisk() {
			// Closing with the store failing MaxRetries tries in a row,
			// all begun after Close: every row is safe in the spill,
			// replayed by the next process; waiting out Close's deadline
			// would gain nothing.
			w.log.WarnContext(w.insertCtx, "analytics store failing at close; rows kept in the spill for the next start", "err", err)
			return
		}
		delay := w.backoff(fails)
		if w.isClosing() {
			delay = w.backoff(closeFails + 1)
		}
		if !w.sleep(delay) {
			return
		}
	}
}

// insert sends b to the store: attempts first, then requests, each through
// the store's FreshInserter on its first try (when the store has one and
// the batch came straight from the batcher), through Store's idempotent
// methods on every later try. A batch the store rejects as invalid is
// retried row by row so only the bad rows are dropped. A panicking store
// counts as a failed insert.
func (w *Writer) insert(b *batch) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("analytics store panicked: %v", p)
		}
	}()
	if len(b.Attempts) > 0 && !b.attemptsDone {
		insert := w.store.InsertAttempts
		if b.freshAttempts && w.fresh != nil {
			insert = w.fresh.InsertFreshAttempts
		}
		b.freshAttempts = false
		err := w.call(func(ctx context.Context) error { return insert(ctx, b.Attempts) })
		if errors.Is(err, ErrRejected) {
			err = eachRow(w, b.Attempts, w.store.InsertAttempts)
		} else if err == nil {
			w.inserted.Add(int64(len(b.Attempts)))
		}
		if err != nil {
			return fmt.Errorf("insert %d attempts: %w", len(b.Attempts), err)
		}
		b.attemptsDone = true
	}
	if len(b.Requests) > 0 {
		insert := w.store.InsertRequests
		if b.freshRequests && w.fresh != nil {
			insert = w.fresh.InsertFreshRequests
		}
		b.freshRequests = false
		err := w.call(func(ctx context.Context) error { return insert(ctx, b.Requests) })
		if errors.Is(err, ErrRejected) {
			err = eachRow(w, b.Requests, w.store.InsertRequests)
		} else if err == nil {
			w.inserted.Add(int64(len(b.Requests)))
		}
		if err != nil {
			return fmt.Errorf("insert %d requests: %w", len(b.Requests), err)
		}
	}
	return nil
}

// call runs one store call bounded by InsertTimeout.
func (w *Writer) call(fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(w.insertCtx, w.cfg.InsertTimeout)
	defer cancel()
	return fn(ctx)
}

// eachRow inserts rows one at a time, dropping (and counting) those the
// store rejects; any other error stops it (the rows already inserted are
// ignored as duplicates on the retry).
func eachRow[T any](w *Writer, rows []T, insert func(context.Context, []T) error) error {
	for i := range rows {
		err := w.call(func(ctx context.Context) error { return insert(ctx, rows[i:i+1]) })
		switch {
		case err == nil:
			w.inserted.Add(1)
		case errors.Is(err, ErrRejected):
			w.rejected.Add(1)
			w.log.ErrorContext(w.insertCtx, "analytics row rejected by the store, dropped", "err", err)
		default:
			return err
		}
	}
	return nil
}

// backoff is the delay after the n-th consecutive failure: RetryBase doubled
// per failure, capped at RetryMax, with +-20% jitter.
func (w *Writer) backoff(n int) time.Duration {
	d := w.cfg.RetryBase
	for i := 1; i < n && d < w.cfg.RetryMax; i++ {
		d *= 2
	}
	d = min(d, w.cfg.RetryMax)
	jitter := time.Duration(rand.Int64N(int64(d)/5+1)) * 2
	return d - d/5 + jitter
}

// sleep waits d, or less when Retry is called or (for a sleep begun
// before it) Close; false when the writer was aborted meanwhile.
func (w *Writer) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	var closing <-chan struct{} // nil, never ready, once closing
	if !w.isClosing() {
		closing = w.stop
	}
	select {
	case <-t.C:
		return true
	case <-w.wake:
		return true
	case <-closing:
		return true
	case <-w.aborted:
		return false
	}
}

func (w *Writer) isAborted() bool {
	select {
	case <-w.aborted:
		return true
	default:
		return false
	}
}

func (w *Writer) isClosing() bool {
	select {
	case <-w.stop:
		return true
	default:
		return false
	}
}

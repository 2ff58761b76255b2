package analytics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// send is the inserter: it inserts the backlog's oldest batch, pops it once
// the store accepted it, and otherwise retries with exponential backoff.
// After MaxRetries failures (at once while closing) the in-memory batches
// move to the spill, keeping their order. It ends when the batcher is done
// and the backlog is empty, or on abort.
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
	}()
	fails := 0
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
		err = w.insert(b)
		if err == nil {
			q.pop(b)
			if fails > 0 {
				w.log.InfoContext(w.insertCtx, "analytics store recovered", "failed_tries", fails)
			}
			fails = 0
			continue
		}
		fails++
		w.failures.Add(1)
		if fails == 1 {
			w.log.WarnContext(w.insertCtx, "analytics insert failed, retrying", "rows", b.rows(), "err", err)
		}
		if fails >= w.cfg.MaxRetries || w.isClosing() {
			if err := q.spillMemory(); err != nil {
				w.log.ErrorContext(w.insertCtx, "analytics spill failed", "err", err)
			}
		}
		if !w.sleep(w.backoff(fails)) {
			return
		}
	}
}

// insert sends b to the store: attempts first, then requests. A panicking
// store counts as a failed insert.
func (w *Writer) insert(b *batch) (err error) {
	ctx, cancel := context.WithTimeout(w.insertCtx, w.cfg.InsertTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("analytics store panicked: %v", p)
		}
	}()
	if len(b.Attempts) > 0 && !b.attemptsDone {
		if err := w.store.InsertAttempts(ctx, b.Attempts); err != nil {
			return fmt.Errorf("insert %d attempts: %w", len(b.Attempts), err)
		}
		b.attemptsDone = true
		w.inserted.Add(int64(len(b.Attempts)))
	}
	if len(b.Requests) > 0 {
		if err := w.store.InsertRequests(ctx, b.Requests); err != nil {
			return fmt.Errorf("insert %d requests: %w", len(b.Requests), err)
		}
		w.inserted.Add(int64(len(b.Requests)))
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

// sleep waits d; false when the writer was aborted meanwhile.
func (w *Writer) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
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

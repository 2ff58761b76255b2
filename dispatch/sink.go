package dispatch

import (
	"context"
	"sync"
	"sync/atomic"
)

// SinkQueue is a Sink that never blocks: events go to a bounded queue that one
// goroutine drains into the inner sink; when the queue is full the event is
// dropped and counted. Build it with AsyncSink.
type SinkQueue struct {
	inner   Sink
	ch      chan AttemptEvent
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	closed  atomic.Bool
	dropped atomic.Uint64
}

var _ Sink = (*SinkQueue)(nil)

// AsyncSink starts a queue of size events (at least 1) in front of inner. Call
// Close to drain it on shutdown.
func AsyncSink(inner Sink, size int) *SinkQueue {
	if size < 1 {
		size = 1
	}
	q := &SinkQueue{
		inner: inner,
		ch:    make(chan AttemptEvent, size),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	go q.run()
	return q
}

// RecordAttempt queues e, or drops and counts it when the queue is full or
// closed. It never blocks.
func (q *SinkQueue) RecordAttempt(e AttemptEvent) {
	if q.closed.Load() {
		q.dropped.Add(1)
		return
	}
	select {
	case q.ch <- e:
	default:
		q.dropped.Add(1)
	}
}

// Dropped is how many events were dropped so far.
func (q *SinkQueue) Dropped() uint64 { return q.dropped.Load() }

// Len is how many events wait in the queue (for a queue-depth gauge).
func (q *SinkQueue) Len() int { return len(q.ch) }

// Close stops accepting events and waits until the queued ones reached the
// inner sink or ctx is done (then it returns ctx's error and the rest is
// abandoned). Events recorded concurrently with Close may be dropped.
func (q *SinkQueue) Close(ctx context.Context) error {
	q.once.Do(func() {
		q.closed.Store(true)
		close(q.stop)
	})
	select {
	case <-q.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (q *SinkQueue) run() {
	defer close(q.done)
	for {
		select {
		case e := <-q.ch:
			q.inner.RecordAttempt(e)
		case <-q.stop:
			for {
				select {
				case e := <-q.ch:
					q.inner.RecordAttempt(e)
				default:
					return
				}
			}
		}
	}
}

type discardSink struct{}

func (discardSink) RecordAttempt(AttemptEvent) {}

package analytics

import (
	"errors"
	"sync"
	"sync/atomic"
)

// backlog holds the batches the store has not accepted yet, oldest first: a
// few in memory, then the rest in the spill. Invariant: every batch in memory
// is older than every batch in the spill, because a batch goes to memory only
// while the spill is empty. The collector pushes; the sender peeks with front,
// inserts, and pops. Without a spill, batches beyond the memory bound are
// dropped.
type backlog struct {
	mu     sync.Mutex
	mem    []*batch
	memMax int
	disk   *spill   // nil: spilling disabled
	jr     *journal // nil without a spill: deletes the journal of batches that left memory
	head   *batch   // the spill's oldest batch, read but not yet inserted

	notify chan struct{} // signalled on every push

	memRows  atomic.Int64
	segments atomic.Int64
	bytes    atomic.Int64
	corrupt  atomic.Int64
}

// errNoRoom reports a batch dropped because memory is full and spilling is
// disabled.
var errNoRoom = errors.New("analytics: backlog full and spilling disabled")

func newBacklog(memMax int, disk *spill, jr *journal) *backlog {
	q := &backlog{memMax: memMax, disk: disk, jr: jr, notify: make(chan struct{}, 1)}
	q.publish()
	return q
}

// push appends b. It returns the rows dropped (all of b, or none) and why.
// Once b is in the spill (or dropped) its journal file is deleted.
func (q *backlog) push(b *batch) (dropped int, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	defer q.publish()
	switch {
	case q.disk != nil && (!q.disk.empty() || len(q.mem) >= q.memMax):
		err := q.disk.append(b)
		q.jr.remove(b.journal)
		if err != nil {
			return b.rows(), err
		}
	case len(q.mem) >= q.memMax:
		q.jr.remove(b.journal)
		return b.rows(), errNoRoom
	default:
		q.mem = append(q.mem, b)
	}
	select {
	case q.notify <- struct{}{}:
	default:
	}
	return 0, nil
}

// front returns the oldest batch without removing it; ok is false when the
// backlog is empty. An error reports a spill that could not be read (the
// batch, if any, stays for a later call).
func (q *backlog) front() (b *batch, ok bool, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	defer q.publish()
	if len(q.mem) > 0 {
		return q.mem[0], true, nil
	}
	if q.head != nil {
		return q.head, true, nil
	}
	if q.disk == nil {
		return nil, false, nil
	}
	b, err = q.disk.next()
	if b == nil {
		return nil, false, err
	}
	q.head = b
	return b, true, nil
}

// pop removes b, which front returned, once the store accepted it, and
// deletes its journal file. It reports whether it removed b: the backlog
// then holds no reference to it any more.
func (q *backlog) pop(b *batch) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	defer q.publish()
	switch {
	case len(q.mem) > 0 && q.mem[0] == b:
		q.mem[0] = nil
		q.mem = q.mem[1:]
		q.jr.remove(b.journal)
		return true
	case q.head == b:
		q.head = nil
		return true
	}
	return false
}

// spillMemory moves the in-memory batches to the front of the spill, so they
// survive a crash and keep their place in the order. It is a no-op without a
// spill, and keeps them in memory if the spill refuses them.
func (q *backlog) spillMemory() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	defer q.publish()
	if q.disk == nil || len(q.mem) == 0 {
		return nil
	}
	if err := q.disk.prepend(q.mem); err != nil {
		return err
	}
	for _, b := range q.mem {
		q.jr.remove(b.journal)
	}
	q.mem = nil
	return nil
}

// onDisk reports whether every batch not yet inserted is in the spill.
func (q *backlog) onDisk() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.disk != nil && len(q.mem) == 0
}

// close spills what is in memory and releases the spill's files. It returns
// the rows that could not be kept (no spill, or the spill refused them).
func (q *backlog) close() (lost int, err error) {
	err = q.spillMemory()
	q.mu.Lock()
	defer q.mu.Unlock()
	defer q.publish()
	for _, b := range q.mem {
		lost += b.rows()
	}
	q.mem = nil
	if q.disk != nil {
		q.disk.close()
	}
	return lost, err
}

// publish refreshes the counters Stats reads without taking the lock.
// Callers hold q.mu (or own q exclusively).
func (q *backlog) publish() {
	var rows int
	for _, b := range q.mem {
		rows += b.rows()
	}
	q.memRows.Store(int64(rows))
	if q.disk != nil {
		q.segments.Store(int64(len(q.disk.segs)))
		q.bytes.Store(q.disk.total)
		q.corrupt.Store(q.disk.corrupt)
	}
}

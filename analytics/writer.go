package analytics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// WriterConfig tunes a Writer. Zero fields take the defaults shown.
type WriterConfig struct {
	QueueSize     int           // rows buffered between Record* and the batcher (10000)
	BatchSize     int           // rows per batch (1000)
	FlushInterval time.Duration // a partial batch is flushed after at most this long (1s)
	Pending       int           // batches held in memory awaiting insert before spilling (4)
	InsertTimeout time.Duration // bound of one insert call (10s)
	MaxRetries    int           // failed tries of an in-memory batch before it is spilled (3)
	RetryBase     time.Duration // first retry delay, doubled per failure with jitter (200ms)
	RetryMax      time.Duration // cap of the retry delay (30s)
	// SpillDir holds the spill segments and the journal. Empty disables
	// both: batches beyond Pending are then dropped (and counted) while the
	// store is down, and a crash loses every row not yet inserted.
	SpillDir string
	// CommitWindow bounds how long a row waits before the group it belongs
	// to is written to the journal (2ms). A process crash (kill -9) loses
	// at most the rows recorded within the last CommitWindow; see journal.
	CommitWindow time.Duration
	// SyncInterval is the least time between two fsyncs of the journal
	// (50ms): the groups written meanwhile share the next one. A machine
	// crash (power loss) loses at most the rows of the last CommitWindow
	// plus SyncInterval and of the fsync in progress.
	SyncInterval  time.Duration
	SegmentBytes  int64 // a segment is closed beyond this size (64 MiB)
	MaxSpillBytes int64 // the spill refuses batches beyond this total (1 GiB)
}

// Validate reports every negative setting at once.
func (c WriterConfig) Validate() error {
	var errs []error
	check := func(name string, bad bool) {
		if bad {
			errs = append(errs, fmt.Errorf("analytics writer: %s must not be negative", name))
		}
	}
	check("queue size", c.QueueSize < 0)
	check("batch size", c.BatchSize < 0)
	check("flush interval", c.FlushInterval < 0)
	check("commit window", c.CommitWindow < 0)
	check("sync interval", c.SyncInterval < 0)
	check("pending", c.Pending < 0)
	check("insert timeout", c.InsertTimeout < 0)
	check("max retries", c.MaxRetries < 0)
	check("retry base", c.RetryBase < 0)
	check("retry max", c.RetryMax < 0)
	check("segment bytes", c.SegmentBytes < 0)
	check("max spill bytes", c.MaxSpillBytes < 0)
	return errors.Join(errs...)
}

func (c WriterConfig) withDefaults() WriterConfig {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.QueueSize, 10000)
	def(&c.BatchSize, 1000)
	def(&c.Pending, 4)
	def(&c.MaxRetries, 3)
	defDur(&c.FlushInterval, time.Second)
	defDur(&c.CommitWindow, 2*time.Millisecond)
	defDur(&c.SyncInterval, 50*time.Millisecond)
	defDur(&c.InsertTimeout, 10*time.Second)
	defDur(&c.RetryBase, 200*time.Millisecond)
	defDur(&c.RetryMax, 30*time.Second)
	if c.SegmentBytes <= 0 {
		c.SegmentBytes = 64 << 20
	}
	if c.MaxSpillBytes <= 0 {
		c.MaxSpillBytes = 1 << 30
	}
	return c
}

// Stats is a snapshot of a Writer's counters, for metrics.
type Stats struct {
	Queued       int64 // rows in memory not yet accepted by the store
	SpilledBytes int64 // bytes of spill segments on disk
	Segments     int64 // spill segment files on disk
	Dropped      int64 // rows lost: queue full, writer closed, spill refused
	Inserted     int64 // rows the store accepted (a replayed row counts again)
	Failures     int64 // failed insert calls
	Rejected     int64 // rows the store refused as invalid (ErrRejected), dropped
	Corrupt      int64 // spill records skipped: bad checksum or torn tail
	// Journaled counts rows written to the journal.
	Journaled int64
	// JournalErrors counts groups of rows the journal could not write (those
	// rows were held in memory only) and failed journal fsyncs.
	JournalErrors int64
	// JournalSyncs counts journal fsyncs (at most one per SyncInterval, and
	// one per sealed file).
	JournalSyncs int64
}

// Writer is the non-blocking sink of analytics rows. Record* never block and
// never fail: rows go to a bounded queue (dropped and counted when it is
// full). A background batcher groups them (BatchSize rows or FlushInterval)
// and an inserter sends batches to the Store with retries and exponential
// backoff. Every row is first group-committed to a journal under SpillDir
// (see CommitWindow), so a crash loses only the last few milliseconds of
// rows. While the store is slow or down, batches go to fsynced spill
// segments under SpillDir, replayed in order when it is back; a segment is
// deleted only once every batch in it was inserted. Spill and journal left
// by a previous process are replayed after Start. One Writer per SpillDir:
// Start locks it (a flock on SpillDir/.lock), so a second one fails.
// A batch's first try goes through the store's FreshInserter when it has
// one (no stored-ids check); retries and replays through Store.
type Writer struct {
	store Store
	fresh FreshInserter // store's, nil when it has none
	cfg   WriterConfig
	log   *slog.Logger

	mu      sync.RWMutex // guards closed against enqueue
	closed  bool
	started atomic.Bool
	queue   chan item

	backlog atomic.Pointer[backlog]
	open    atomic.Int64 // rows in the batch being built
	// spare holds batches the store accepted, emptied, for the batcher to
	// build the next ones in: their slices keep the capacity a batch
	// needed, so adding rows to a batch does not grow (copy) them again.
	spare chan *batch
	jr    *journal // nil without SpillDir; set by Start
	// lock is held on SpillDir from Start until the inserter is done with
	// the directory (nil without SpillDir).
	lock *dirLock
	// syncerDone is closed when the journal's syncer has returned (at
	// once without a journal).
	syncerDone chan struct{}

	journaled      atomic.Int64
	journalErrors  atomic.Int64
	journalFailing bool // owned by the batcher

	stop          chan struct{} // closed by Close: drain and finish
	stopOnce      sync.Once
	aborted       chan struct{} // closed when inserts must stop: spill and exit
	abortOnce     sync.Once
	insertCtx     context.Context
	cancelInserts context.CancelFunc
	collectorDone chan struct{}
	senderDone    chan struct{}
	wake          chan struct{} // Retry: cut the current backoff short

	dropped  atomic.Int64
	lost     atomic.Int64 // of dropped: rows the final close could not keep
	inserted atomic.Int64
	failures atomic.Int64
	rejected atomic.Int64

	dropReported int64     // owned by the batcher
	dropReportAt time.Time // owned by the batcher
}

type item struct {
	attempt *Attempt
	request *Request
}

// closeGrace is how long Close still waits for the inserter after its
// context expired and the in-flight insert was cancelled.
const closeGrace = time.Second

// NewWriter returns a Writer over store; nothing runs until Start. Settings
// that are zero or negative take their defaults (use cfg.Validate to reject
// negative ones). A nil logger discards logs.
func NewWriter(store Store, cfg WriterConfig, logger *slog.Logger) *Writer {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	cfg = cfg.withDefaults()
	fresh, _ := store.(FreshInserter)
	return &Writer{
		store:         store,
		fresh:         fresh,
		cfg:           cfg,
		log:           logger,
		queue:         make(chan item, cfg.QueueSize),
		stop:          make(chan struct{}),
		aborted:       make(chan struct{}),
		collectorDone: make(chan struct{}),
		senderDone:    make(chan struct{}),
		syncerDone:    make(chan struct{}),
		wake:          make(chan struct{}, 1),
		spare:         make(chan *batch, spareBatches),
	}
}

// spareBatches is how many emptied batches the Writer keeps for reuse: one
// being built while one is inserted, and one more for a batch flushed by
// FlushInterval before the inserter handed one back.
const spareBatches = 2

// newBatch returns an empty batch, a spare one when there is one.
func (w *Writer) newBatch() *batch {
	select {
	case b := <-w.spare:
		return b
	default:
		return &batch{}
	}
}

// reuse empties b, which nothing references any more (the store accepted
// it and the backlog let it go), and keeps it for newBatch. The rows are
// zeroed so the spare batch holds no strings alive.
func (w *Writer) reuse(b *batch) {
	clear(b.Attempts)
	clear(b.Requests)
	*b = batch{Attempts: b.Attempts[:0], Requests: b.Requests[:0]}
	select {
	case w.spare <- b:
	default:
	}
}

// Retry cuts the inserter's current backoff short so that the next insert
// (or spill replay) is tried now: call it when the store is known to be back
// (a connection was established). It never blocks; calls while a retry is
// already pending are merged.
func (w *Writer) Retry() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// The rows between Record* and the batcher are in pooled copies, handed
// back by the batcher once it copied them into its group: a row costs no
// allocation of its own.
var (
	attemptCopies = sync.Pool{New: func() any { return new(Attempt) }}
	requestCopies = sync.Pool{New: func() any { return new(Request) }}
)

// RecordAttempt queues one attempt row. It never blocks.
func (w *Writer) RecordAttempt(a Attempt) {
	p := attemptCopies.Get().(*Attempt)
	*p = a
	if !w.enqueue(item{attempt: p}) {
		*p = Attempt{}
		attemptCopies.Put(p)
	}
}

// RecordRequest queues one request row. It never blocks.
func (w *Writer) RecordRequest(r Request) {
	p := requestCopies.Get().(*Request)
	*p = r
	if !w.enqueue(item{request: p}) {
		*p = Request{}
		requestCopies.Put(p)
	}
}

// enqueue queues it, or counts it dropped and returns false.
func (w *Writer) enqueue(it item) bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		w.dropped.Add(1)
		return false
	}
	select {
	case w.queue <- it:
		return true
	default:
		w.dropped.Add(1)
		return false
	}
}

// take copies the row of it, which the queue delivered, into g and hands
// the pooled copy back.
func take(g *batch, it item) {
	if it.attempt != nil {
		g.Attempts = append(g.Attempts, *it.attempt)
		*it.attempt = Attempt{}
		attemptCopies.Put(it.attempt)
		return
	}
	g.Requests = append(g.Requests, *it.request)
	*it.request = Request{}
	requestCopies.Put(it.request)
}

// Start opens the spill directory (replaying what a previous process left)
// and starts the background batcher and inserter. When ctx is done the
// Writer stops as if Close had run out of time: queued rows are spilled,
// nothing more is inserted. It fails (and starts nothing) when the spill
// directory cannot be opened, when another Writer holds its lock
// (ErrSpillDirInUse), when called twice (ErrWriterStarted) or after Close
// (ErrWriterClosed). The lock is taken before anything in the directory is
// read and released once the inserter has finished with it (after Close,
// or after ctx is done).
func (w *Writer) Start(ctx context.Context) error {
	if !w.started.CompareAndSwap(false, true) {
		return ErrWriterStarted
	}
	w.mu.RLock()
	closed := w.closed
	w.mu.RUnlock()
	if closed {
		w.started.Store(false)
		return ErrWriterClosed
	}
	var disk *spill
	if w.cfg.SpillDir != "" {
		lock, err := lockDir(w.cfg.SpillDir)
		if err != nil {
			w.started.Store(false)
			return err
		}
		if disk, err = openSpill(w.cfg.SpillDir, w.cfg.SegmentBytes, w.cfg.MaxSpillBytes); err != nil {
			lock.release()
			w.started.Store(false)
			return err
		}
		jr, rows, err := recoverJournal(w.cfg.SpillDir, disk)
		switch {
		case jr == nil:
			disk.close()
			lock.release()
			w.started.Store(false)
			return err
		case err != nil:
			// The files stay for the next start; this one still serves.
			w.log.ErrorContext(ctx, "analytics journal of the previous run not recovered", "err", err)
		case rows > 0:
			w.log.InfoContext(ctx, "analytics journal of the previous run recovered", "rows", rows)
		}
		w.jr, w.lock = jr, lock
		if n := len(disk.segs); n > 0 {
			w.log.InfoContext(ctx, "analytics spill found, replaying", "segments", n, "bytes", disk.total)
		}
	}
	w.backlog.Store(newBacklog(w.cfg.Pending, disk, w.jr))
	w.insertCtx, w.cancelInserts = context.WithCancel(context.WithoutCancel(ctx))
	context.AfterFunc(ctx, func() {
		w.markClosed()
		w.stopOnce.Do(func() { close(w.stop) })
		w.abort()
	})
	if w.jr != nil {
		go func() {
			defer close(w.syncerDone)
			w.jr.syncLoop(w.collectorDone, w.cfg.SyncInterval)
		}()
	} else {
		close(w.syncerDone)
	}
	go w.collect()
	go w.send()
	return nil
}

func (w *Writer) markClosed() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
}

// abort makes the inserter give up: the in-flight insert is cancelled and
// whatever is left is spilled.
func (w *Writer) abort() {
	w.abortOnce.Do(func() {
		close(w.aborted)
		w.cancelInserts()
	})
}

// Close stops accepting rows, flushes what it can to the store within ctx
// and spills the rest. It returns an error when rows were lost (no spill, or
// the spill refused them) or the inserter did not stop in time. Calling it
// again waits again; Close on a Writer never started drops its queue.
func (w *Writer) Close(ctx context.Context) error {
	w.markClosed()
	if !w.started.Load() {
		n := len(w.queue)
		for range n {
			<-w.queue
		}
		w.dropped.Add(int64(n))
		if n > 0 {
			return fmt.Errorf("analytics writer closed before start: %d rows dropped", n)
		}
		return nil
	}
	w.stopOnce.Do(func() { close(w.stop) })
	stopAbort := context.AfterFunc(ctx, w.abort)
	defer stopAbort()
	select {
	case <-w.senderDone:
	case <-ctx.Done():
		w.abort()
		select {
		case <-w.senderDone:
		case <-time.After(closeGrace):
			return fmt.Errorf("analytics writer: inserter did not stop: %w", ctx.Err())
		}
	}
	if n := w.lost.Load(); n > 0 {
		return fmt.Errorf("analytics writer: %d rows could not be kept", n)
	}
	return nil
}

// Stats returns a snapshot of the counters; it never blocks on I/O.
func (w *Writer) Stats() Stats {
	s := Stats{
		Queued:   int64(len(w.queue)) + w.open.Load(),
		Dropped:  w.dropped.Load(),
		Inserted: w.inserted.Load(),
		Failures: w.failures.Load(),
		Rejected: w.rejected.Load(),

		Journaled:     w.journaled.Load(),
		JournalErrors: w.journalErrors.Load() + w.jr.syncErrorCount(),
		JournalSyncs:  w.jr.syncCount(),
	}
	if q := w.backlog.Load(); q != nil {
		s.Queued += q.memRows.Load()
		s.SpilledBytes = q.bytes.Load()
		s.Segments = q.segments.Load()
		s.Corrupt = q.corrupt.Load()
	}
	return s
}

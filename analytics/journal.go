package analytics

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// journal is the write-ahead log of the batch being built: the batcher
// writes every group of rows it takes from the queue to the journal file of
// the open batch before the rows join the batch (group commit), and a
// syncer fsyncs the file behind the writes, at most once per SyncInterval,
// merging the groups written meanwhile. A journal file is fsynced and sealed when its
// batch is pushed onto the backlog, and deleted once the batch is inserted,
// moved into the spill or dropped. The files a crashed process left behind
// hold the rows it had only in memory; Start moves them into the spill.
//
// So a process crash (kill -9, OOM) loses at most the group not yet written:
// rows recorded within the last CommitWindow (a written group is in the
// kernel's page cache, which outlives the process); a machine crash loses
// at most that plus the groups written within the last SyncInterval and
// the fsync in progress. Rows in a journal
// file that were inserted before the crash are inserted again on replay and
// ignored by the store (idempotent by EventID).
//
// Journal files live in the spill directory, named "<seq>.wal", in the
// segment format (segMagic, then one frame per group). The batcher owns the
// open file (mu guards it against the syncer); remove is safe from any
// goroutine.
type journal struct {
	dir  string
	kick chan struct{} // a group was written: fsync

	mu     sync.Mutex
	seq    uint64     // of the open file, or the next one to open
	f      *os.File   // open file, nil until the first group of a batch
	size   int64      // bytes written to f (its end: commit appends there)
	sealed []*os.File // sealed files the syncer still has to fsync and close

	// frame is the buffer commit encodes a group in, reused from group to
	// group; only the batcher (commit's one caller) touches it.
	frame []byte

	syncErrors atomic.Int64
	syncs      atomic.Int64
}

const walSuffix = ".wal"

func (j *journal) path(seq uint64) string {
	return filepath.Join(j.dir, fmt.Sprintf("%020d%s", seq, walSuffix))
}

// commit appends g to the open journal file (creating it with its header
// first) and asks the syncer for an fsync. On error the file is cut back to
// what it held, so a later group can still be read after it.
func (j *journal) commit(g *batch) error {
	frame, err := appendFrame(j.frame[:0], g)
	if cap(frame) <= maxJournalBuffer {
		j.frame = frame
	}
	if err != nil {
		return fmt.Errorf("%w: journal: %w", ErrSpill, err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		// O_APPEND: after a failed write is cut off (Truncate leaves the
		// file offset where the write stopped) the next one still lands
		// at the end, not after a hole.
		f, err := os.OpenFile(j.path(j.seq), os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("%w: journal: create: %w", ErrSpill, err)
		}
		if _, err := f.Write([]byte(segMagic)); err != nil {
			_ = f.Close()
			_ = os.Remove(j.path(j.seq))
			return fmt.Errorf("%w: journal: write header: %w", ErrSpill, err)
		}
		j.f, j.size = f, int64(len(segMagic))
		syncDir(j.dir)
	}
	// The file is written only here, so its end is known (no Seek).
	if _, err := j.f.Write(frame); err != nil {
		if j.f.Truncate(j.size) != nil {
			_ = j.f.Close()
			j.f = nil
			j.seq++ // never append after a torn frame
		}
		return fmt.Errorf("%w: journal: %w", ErrSpill, err)
	}
	j.size += int64(len(frame))
	select {
	case j.kick <- struct{}{}:
	default: // an fsync is already due; it covers this group too
	}
	return nil
}

// maxJournalBuffer bounds the frame buffer the journal keeps between
// groups: a larger one (a group of unusually large rows) is dropped after
// its write rather than held for the rest of the run.
const maxJournalBuffer = 1 << 20

// syncErrorCount is how many fsyncs failed (0 for a nil journal).
func (j *journal) syncErrorCount() int64 {
	if j == nil {
		return 0
	}
	return j.syncErrors.Load()
}

// syncCount is how many fsyncs ran (0 for a nil journal).
func (j *journal) syncCount() int64 {
	if j == nil {
		return 0
	}
	return j.syncs.Load()
}

// syncLoop fsyncs the open file after a write, and fsyncs and closes the
// sealed ones, at most once per every (the groups written meanwhile share
// the next fsync), until done is closed (then it finishes the sealed ones
// at once). The batcher never waits for an fsync.
func (j *journal) syncLoop(done <-chan struct{}, every time.Duration) {
	pause := time.NewTimer(every)
	pause.Stop()
	defer pause.Stop()
	for {
		stop := false
		select {
		case <-done:
			stop = true
		case <-j.kick:
		}
		j.mu.Lock()
		f, sealed := j.f, j.sealed
		j.sealed = nil
		j.mu.Unlock()
		// Outside the lock, so the batcher keeps writing meanwhile.
		if f != nil && !stop {
			j.sync(f)
		}
		for _, s := range sealed {
			j.sync(s)
			_ = s.Close()
		}
		if stop {
			return
		}
		pause.Reset(every)
		select {
		case <-done:
		case <-pause.C:
		}
	}
}

func (j *journal) sync(f *os.File) {
	j.syncs.Add(1)
	if err := f.Sync(); err != nil {
		j.syncErrors.Add(1)
	}
}

// seal hands the open file to the syncer (for its last fsync and close)
// and returns its sequence number for the batch it journals (0 when no
// group of the batch reached the journal).
func (j *journal) seal() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return 0
	}
	j.sealed = append(j.sealed, j.f)
	j.f = nil
	select {
	case j.kick <- struct{}{}:
	default:
	}
	seq := j.seq
	j.seq++
	return seq
}

// remove deletes the journal file seq (0: none). A file left by a failed
// removal is replayed as duplicates, which the store ignores.
func (j *journal) remove(seq uint64) {
	if j == nil || seq == 0 {
		return
	}
	_ = os.Remove(j.path(seq))
}

// recoverJournal moves the journal files a previous process left in dir
// into the spill, oldest first and older than every spilled batch (they held
// what was in memory, which is older than the spill), and returns the
// journal to use from now on together with the rows it recovered. Files it
// could not move stay on disk for the next start.
func recoverJournal(dir string, disk *spill) (*journal, int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: list %s: %w", ErrSpill, dir, err)
	}
	var seqs []uint64
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, walSuffix) {
			continue
		}
		if seq, err := strconv.ParseUint(strings.TrimSuffix(name, walSuffix), 10, 64); err == nil && seq > 0 {
			seqs = append(seqs, seq)
		}
	}
	slices.Sort(seqs)
	j := &journal{dir: dir, seq: 1, kick: make(chan struct{}, 1)}
	if len(seqs) > 0 {
		j.seq = seqs[len(seqs)-1] + 1
	}
	var batches []*batch
	rows := 0
	for _, seq := range seqs {
		b, err := readJournal(j.path(seq), disk)
		if err != nil {
			return j, 0, err
		}
		if b.rows() > 0 {
			batches = append(batches, b)
			rows += b.rows()
		}
	}
	if len(batches) > 0 {
		if err := disk.prepend(batches); err != nil {
			return j, 0, err
		}
	}
	for _, seq := range seqs {
		j.remove(seq)
	}
	syncDir(dir)
	return j, rows, nil
}

// readJournal returns every row of one journal file as one batch. A torn
// tail (the group being written at the crash) ends the file; frames with a
// bad checksum are skipped; both are counted as corrupt in disk.
func readJournal(path string, disk *spill) (*batch, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: open journal: %w", ErrSpill, err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	all := &batch{}
	magic := make([]byte, len(segMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != segMagic {
		// Created but its header never reached the disk: nothing in it.
		disk.corrupt++
		return all, nil
	}
	for {
		g, _, err := readFrame(r)
		switch {
		case err == nil:
			all.Attempts = append(all.Attempts, g.Attempts...)
			all.Requests = append(all.Requests, g.Requests...)
			continue
		case errors.Is(err, errBadChecksum):
			disk.corrupt++
			continue
		case errors.Is(err, errTornFrame):
			disk.corrupt++
		}
		return all, nil
	}
}

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
)

// spill is a directory of append-only segment files holding batches the
// store has not accepted yet. Segments are named by a sequence number; lower
// numbers are older and are replayed first. A spill is not safe for
// concurrent use: the backlog serialises access to it.
type spill struct {
	dir      string
	segBytes int64 // rotate the active segment beyond this size
	maxBytes int64 // refuse appends beyond this total
	segs     []segInfo
	total    int64

	w     *os.File // active segment, the last of segs, or nil
	wSeq  uint64
	r     *bufio.Reader // reader over segs[0], or nil
	rFile *os.File

	corrupt int64 // frames skipped or torn tails met
}

// errBadSegment marks a segment file without a valid header.
var errBadSegment = errors.New("no valid segment header")

type segInfo struct {
	seq  uint64
	size int64
}

const (
	segMagic  = "HDLSPL01"
	segSuffix = ".seg"
	// firstSeq leaves room below for segments prepended before the oldest.
	firstSeq = uint64(1) << 40
)

// openSpill opens (creating it if needed) the spill directory and lists the
// segments a previous process left.
func openSpill(dir string, segBytes, maxBytes int64) (*spill, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: create %s: %w", ErrSpill, dir, err)
	}
	// 0700 whatever the umask or an older mode: segments hold request rows.
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: chmod %s: %w", ErrSpill, dir, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: list %s: %w", ErrSpill, dir, err)
	}
	s := &spill{dir: dir, segBytes: segBytes, maxBytes: maxBytes}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, segSuffix) {
			continue
		}
		seq, err := strconv.ParseUint(strings.TrimSuffix(name, segSuffix), 10, 64)
		if err != nil {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return nil, fmt.Errorf("%w: stat %s: %w", ErrSpill, name, err)
		}
		s.segs = append(s.segs, segInfo{seq: seq, size: info.Size()})
		s.total += info.Size()
	}
	slices.SortFunc(s.segs, func(a, b segInfo) int { return cmpUint(a.seq, b.seq) })
	return s, nil
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (s *spill) path(seq uint64) string {
	return filepath.Join(s.dir, fmt.Sprintf("%020d%s", seq, segSuffix))
}

func (s *spill) empty() bool { return len(s.segs) == 0 }

// append writes b to the active segment (starting one if needed) and fsyncs.
func (s *spill) append(b *batch) error {
	frame, err := appendFrame(nil, b)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSpill, err)
	}
	if s.total+int64(len(frame))+int64(len(segMagic)) > s.maxBytes {
		return fmt.Errorf("%w: spill full (%d of %d bytes)", ErrSpill, s.total, s.maxBytes)
	}
	if s.w != nil && s.segs[len(s.segs)-1].size+int64(len(frame)) > s.segBytes {
		s.closeWriter()
	}
	if s.w == nil {
		seq := firstSeq
		if n := len(s.segs); n > 0 {
			seq = s.segs[n-1].seq + 1
		}
		f, err := s.create(seq)
		if err != nil {
			return err
		}
		s.w, s.wSeq = f, seq
		s.segs = append(s.segs, segInfo{seq: seq, size: int64(len(segMagic))})
		s.total += int64(len(segMagic))
	}
	last := &s.segs[len(s.segs)-1]
	if _, err := s.w.Write(frame); err != nil {
		// Cut the partial frame off so later frames stay readable; if that
		// fails, stop appending to this segment.
		if s.w.Truncate(last.size) != nil {
			s.closeWriter()
		}
		return fmt.Errorf("%w: write: %w", ErrSpill, err)
	}
	if err := s.w.Sync(); err != nil {
		if s.w.Truncate(last.size) != nil {
			s.closeWriter()
		}
		return fmt.Errorf("%w: sync: %w", ErrSpill, err)
	}
	last.size += int64(len(frame))
	s.total += int64(len(frame))
	return nil
}

// prepend writes bs, in order, into a new segment older than every existing
// one, so they are replayed first.
func (s *spill) prepend(bs []*batch) error {
	seq := firstSeq
	if len(s.segs) > 0 {
		seq = s.segs[0].seq - 1
	}
	buf := []byte(segMagic)
	for _, b := range bs {
		var err error
		if buf, err = appendFrame(buf, b); err != nil {
			return fmt.Errorf("%w: %w", ErrSpill, err)
		}
	}
	if s.total+int64(len(buf)) > s.maxBytes {
		return fmt.Errorf("%w: spill full (%d of %d bytes)", ErrSpill, s.total, s.maxBytes)
	}
	f, err := os.OpenFile(s.path(seq), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("%w: create segment: %w", ErrSpill, err)
	}
	_, werr := f.Write(buf)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(s.path(seq))
		return fmt.Errorf("%w: write segment: %w", ErrSpill, werr)
	}
	s.syncDir()
	s.segs = slices.Insert(s.segs, 0, segInfo{seq: seq, size: int64(len(buf))})
	s.total += int64(len(buf))
	return nil
}

// create starts a segment file with its magic header, fsynced.
func (s *spill) create(seq uint64) (*os.File, error) {
	f, err := os.OpenFile(s.path(seq), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%w: create segment: %w", ErrSpill, err)
	}
	if _, err := f.Write([]byte(segMagic)); err != nil {
		_ = f.Close()
		_ = os.Remove(s.path(seq))
		return nil, fmt.Errorf("%w: write segment header: %w", ErrSpill, err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		_ = os.Remove(s.path(seq))
		return nil, fmt.Errorf("%w: sync segment: %w", ErrSpill, err)
	}
	s.syncDir()
	return f, nil
}

// next returns the oldest batch not yet returned. Call it again only after
// the previous batch was inserted: reaching the end of a segment deletes it.
// It returns nil, nil when the spill is empty.
func (s *spill) next() (*batch, error) {
	for len(s.segs) > 0 {
		if s.r == nil {
			err := s.openReader()
			if errors.Is(err, errBadSegment) {
				// Created but never written (a crash before the header
				// reached the disk): nothing in it to replay.
				s.corrupt++
				if err := s.dropOldest(); err != nil {
					return nil, err
				}
				continue
			}
			if err != nil {
				return nil, err
			}
		}
		b, _, err := readFrame(s.r)
		switch {
		case err == nil:
			return b, nil
		case errors.Is(err, errBadChecksum):
			s.corrupt++
			continue
		case errors.Is(err, errTornFrame):
			s.corrupt++
		}
		// End of the oldest segment: every batch in it was inserted.
		if err := s.dropOldest(); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func (s *spill) openReader() error {
	seg := s.segs[0]
	f, err := os.Open(s.path(seg.seq))
	if err != nil {
		return fmt.Errorf("%w: open segment %d: %w", ErrSpill, seg.seq, err)
	}
	r := bufio.NewReaderSize(f, 64<<10)
	magic := make([]byte, len(segMagic))
	_, err = io.ReadFull(r, magic)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		_ = f.Close()
		return fmt.Errorf("%w: read segment %d: %w", ErrSpill, seg.seq, err)
	}
	if err != nil || string(magic) != segMagic {
		_ = f.Close()
		return fmt.Errorf("%w: segment %d: %w", ErrSpill, seg.seq, errBadSegment)
	}
	s.r, s.rFile = r, f
	return nil
}

// dropOldest closes and deletes the oldest segment.
func (s *spill) dropOldest() error {
	seg := s.segs[0]
	if s.rFile != nil {
		_ = s.rFile.Close()
		s.r, s.rFile = nil, nil
	}
	if s.w != nil && s.wSeq == seg.seq {
		s.closeWriter()
	}
	if err := os.Remove(s.path(seg.seq)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: delete segment %d: %w", ErrSpill, seg.seq, err)
	}
	s.syncDir()
	s.segs = s.segs[1:]
	s.total -= seg.size
	return nil
}

func (s *spill) closeWriter() {
	if s.w != nil {
		_ = s.w.Close()
		s.w = nil
	}
}

// syncDir makes segment creation and deletion durable; best effort.
func (s *spill) syncDir() { syncDir(s.dir) }

// syncDir fsyncs directory dir, making file creation and deletion in it
// durable; best effort.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// close releases open files; segments stay on disk for the next process.
func (s *spill) close() {
	s.closeWriter()
	if s.rFile != nil {
		_ = s.rFile.Close()
		s.r, s.rFile = nil, nil
	}
}

package analytics

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// batch is the Writer's unit of work: rows flushed together and inserted (or
// spilled) together. Within a batch attempts are inserted before requests.
type batch struct {
	Attempts []Attempt `json:"a,omitempty"`
	Requests []Request `json:"r,omitempty"`
	// attemptsDone is set once the store accepted Attempts, so a retry after
	// a failed InsertRequests resends only the requests.
	attemptsDone bool
	// freshAttempts and freshRequests are set by the batcher on a batch it
	// built from the queue: none of those rows was handed to the store yet,
	// so their first try may skip the store's stored-ids check (see
	// FreshInserter). The inserter clears each before its first store call,
	// whatever its outcome. A batch read back from the spill or the journal
	// has neither (they are not encoded).
	freshAttempts, freshRequests bool
	// journal is the sequence number of the journal file holding these
	// rows, deleted once they are inserted, spilled or dropped (0: none).
	journal uint64
}

func (b *batch) rows() int { return len(b.Attempts) + len(b.Requests) }

// A spill record (frame) is: payload length (uint32, big endian), CRC-32C of
// the payload (uint32, big endian), payload (the batch as JSON). A frame
// whose checksum does not match is skipped; a frame cut short ends the
// segment (a torn tail left by a crash).
const (
	frameHeader  = 8
	maxFrameSize = 1 << 30
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// errTornFrame reports a frame cut short: the segment ends here.
var errTornFrame = errors.New("torn frame")

// errBadChecksum reports a complete frame whose payload does not match its
// checksum: it is skipped.
var errBadChecksum = errors.New("checksum mismatch")

// appendFrame appends b to dst as one frame and returns the extended
// buffer: the journal and the spill encode into buffers they reuse, so a
// frame costs no allocation once the buffer has grown to a group's size.
func appendFrame(dst []byte, b *batch) ([]byte, error) {
	start := len(dst)
	buf := append(dst, make([]byte, frameHeader)...)
	buf, err := appendBatchJSON(buf, b)
	if err != nil {
		// NaN or infinite floats: store what the stores would keep.
		for i := range b.Attempts {
			b.Attempts[i] = b.Attempts[i].Clean()
		}
		for i := range b.Requests {
			b.Requests[i] = b.Requests[i].Clean()
		}
		if buf, err = appendBatchJSON(buf[:start+frameHeader], b); err != nil {
			return dst, fmt.Errorf("encode batch: %w", err)
		}
	}
	payload := buf[start+frameHeader:]
	if len(payload) > maxFrameSize {
		return dst, fmt.Errorf("encode batch: %d bytes exceeds the frame limit", len(payload))
	}
	binary.BigEndian.PutUint32(buf[start:start+4], uint32(len(payload)))
	binary.BigEndian.PutUint32(buf[start+4:start+8], crc32.Checksum(payload, crcTable))
	return buf, nil
}

// readFrame reads the next frame from r. It returns io.EOF at a clean end,
// errTornFrame for a frame cut short (or with an impossible length) and
// errBadChecksum (with n, the bytes consumed) for a frame to skip.
func readFrame(r io.Reader) (b *batch, n int64, err error) {
	var hdr [frameHeader]byte
	if k, err := io.ReadFull(r, hdr[:]); err != nil {
		if err == io.EOF {
			return nil, 0, io.EOF
		}
		return nil, int64(k), errTornFrame
	}
	size := binary.BigEndian.Uint32(hdr[0:4])
	if size > maxFrameSize {
		return nil, frameHeader, errTornFrame
	}
	payload := make([]byte, size)
	if k, err := io.ReadFull(r, payload); err != nil {
		return nil, frameHeader + int64(k), errTornFrame
	}
	n = frameHeader + int64(size)
	if crc32.Checksum(payload, crcTable) != binary.BigEndian.Uint32(hdr[4:8]) {
		return nil, n, errBadChecksum
	}
	b = &batch{}
	if err := json.Unmarshal(payload, b); err != nil {
		return nil, n, errBadChecksum
	}
	return b, n, nil
}

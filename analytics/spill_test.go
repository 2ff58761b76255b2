package analytics

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"testing"
	"time"
)

func idBatch(ids ...string) *batch {
	b := &batch{}
	for _, id := range ids {
		b.Requests = append(b.Requests, Request{EventID: id, OrgID: "o", Time: time.UnixMilli(1700000000123).UTC()})
	}
	return b
}

func readAll(t *testing.T, s *spill) []string {
	t.Helper()
	var ids []string
	for {
		b, err := s.next()
		if err != nil {
			t.Fatalf("next: %v", err)
		}
		if b == nil {
			return ids
		}
		for _, r := range b.Requests {
			ids = append(ids, r.EventID)
		}
	}
}

func TestFrameRoundTripAndDamage(t *testing.T) {
	in := idBatch("x", "y")
	in.Attempts = []Attempt{{EventID: "a", AttemptIndex: 2, Stream: true, LatencyMs: 1.5}}
	frame, err := appendFrame(nil, in)
	if err != nil {
		t.Fatal(err)
	}
	out, n, err := readFrame(bytes.NewReader(frame))
	if err != nil || n != int64(len(frame)) {
		t.Fatalf("readFrame: n=%d err=%v", n, err)
	}
	if len(out.Requests) != 2 || out.Requests[1].EventID != "y" || !out.Requests[0].Time.Equal(in.Requests[0].Time) ||
		len(out.Attempts) != 1 || out.Attempts[0] != in.Attempts[0] {
		t.Fatalf("round trip: got %+v", out)
	}

	flipped := bytes.Clone(frame)
	flipped[len(flipped)-2] ^= 0xff
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, io.EOF},
		{"short header", frame[:5], errTornFrame},
		{"short payload", frame[:len(frame)-1], errTornFrame},
		{"bad checksum", flipped, errBadChecksum},
		{"absurd length", []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}, errTornFrame},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := readFrame(bytes.NewReader(tt.data)); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func TestSpillOrderRotationPrependAndDelete(t *testing.T) {
	dir := t.TempDir()
	s, err := openSpill(dir, 300, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"3", "4", "5", "6"} {
		if err := s.append(idBatch(id)); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.segs) < 2 {
		t.Fatalf("segments did not rotate at 300 bytes: %d", len(s.segs))
	}
	if err := s.prepend([]*batch{idBatch("1"), idBatch("2")}); err != nil {
		t.Fatal(err)
	}
	var onDisk int64
	for _, seg := range s.segs {
		fi, err := os.Stat(s.path(seg.seq))
		if err != nil || fi.Size() != seg.size {
			t.Fatalf("segment %d: size %v, tracked %d (%v)", seg.seq, fi.Size(), seg.size, err)
		}
		onDisk += fi.Size()
	}
	if onDisk != s.total {
		t.Fatalf("total %d, on disk %d", s.total, onDisk)
	}
	s.close()

	// A new process sees the same order, and reading to the end deletes.
	s2, err := openSpill(dir, 300, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, s2); !equal(got, []string{"1", "2", "3", "4", "5", "6"}) {
		t.Fatalf("replay order: %v", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 || s2.total != 0 {
		t.Fatalf("after replay: %d files, total %d", len(entries), s2.total)
	}
}

func TestSpillSkipsBadChecksumAndEmptySegment(t *testing.T) {
	dir := t.TempDir()
	s, err := openSpill(dir, 1<<20, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"1", "2", "3"} {
		if err := s.append(idBatch(id)); err != nil {
			t.Fatal(err)
		}
	}
	path := s.path(s.segs[0].seq)
	s.close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	frame, _ := appendFrame(nil, idBatch("1"))
	data[len(segMagic)+len(frame)-3] ^= 0x55 // damage the first frame's payload
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	// A segment created but never written comes first.
	if err := os.WriteFile(s.path(s.segs[0].seq-1), nil, 0o600); err != nil {
		t.Fatal(err)
	}

	s2, err := openSpill(dir, 1<<20, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, s2); !equal(got, []string{"2", "3"}) {
		t.Fatalf("got %v, want [2 3]", got)
	}
	if s2.corrupt != 2 {
		t.Errorf("corrupt: got %d, want 2", s2.corrupt)
	}
}

func TestSpillRefusesBeyondMax(t *testing.T) {
	one, _ := appendFrame(nil, idBatch("1"))
	s, err := openSpill(t.TempDir(), 1<<20, int64(len(segMagic)+len(one)+10))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.append(idBatch("1")); err != nil {
		t.Fatal(err)
	}
	if err := s.append(idBatch("2", "3", "4")); !errors.Is(err, ErrSpill) {
		t.Fatalf("append beyond max: got %v", err)
	}
	if err := s.prepend([]*batch{idBatch("0", "00", "000")}); !errors.Is(err, ErrSpill) {
		t.Fatalf("prepend beyond max: got %v", err)
	}
	if got := readAll(t, s); !equal(got, []string{"1"}) {
		t.Fatalf("got %v", got)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFrameCarriesNonFiniteFloatsAsZero(t *testing.T) {
	b := idBatch("n")
	b.Requests[0].LatencyMs = math.NaN()
	b.Attempts = []Attempt{{EventID: "a", TTFBMs: math.Inf(1), LatencyMs: 3}}
	// Appended after what the buffer holds (as the journal's and the
	// spill's buffers do), the re-encoding of the cleaned rows included.
	frame, err := appendFrame([]byte(segMagic), b)
	if err != nil {
		t.Fatalf("appendFrame: %v", err)
	}
	if string(frame[:len(segMagic)]) != segMagic {
		t.Fatalf("appendFrame overwrote what the buffer held: %q", frame[:len(segMagic)])
	}
	out, _, err := readFrame(bytes.NewReader(frame[len(segMagic):]))
	if err != nil {
		t.Fatal(err)
	}
	if out.Requests[0].LatencyMs != 0 || out.Attempts[0].TTFBMs != 0 || out.Attempts[0].LatencyMs != 3 {
		t.Errorf("got %+v / %+v", out.Requests[0], out.Attempts[0])
	}
}

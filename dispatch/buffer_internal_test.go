package dispatch

import (
	"bytes"
	"errors"
	"io"
	"math"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadAnswer: an answer of announced length is read into one buffer of
// its size (not grown from 512 bytes); a wrong or missing length still reads
// the whole answer, and the limit still holds.
func TestReadAnswer(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 300)
	const limit = 1 << 20
	for _, tc := range []struct {
		name string
		size int64
	}{{"announced", int64(len(body))}, {"unknown", -1}, {"short hint", 10}, {"long hint", 5000}, {"over limit hint", limit + 5}} {
		got, err := readAnswer(iotest.HalfReader(bytes.NewReader(body)), limit, tc.size)
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("%s: read %d bytes (err %v), want the %d sent", tc.name, len(got), err, len(body))
		}
	}
	got, err := readAnswer(bytes.NewReader(body), 100, int64(len(body)))
	if err != nil || len(got) != 101 {
		t.Errorf("over the limit: read %d bytes (err %v), want limit+1 = 101", len(got), err)
	}
	wantErr := errors.New("reset")
	if _, err := readAnswer(io.MultiReader(bytes.NewReader(body[:10]), iotest.ErrReader(wantErr)), limit, int64(len(body))); !errors.Is(err, wantErr) {
		t.Errorf("a failed read: err %v, want %v", err, wantErr)
	}
	var r bytes.Reader
	allocs := testing.AllocsPerRun(100, func() {
		r.Reset(body)
		if _, err := readAnswer(&r, limit, int64(len(body))); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("an answer of announced length took %.0f allocations, want 1", allocs)
	}
	h := http.Header{}
	for v, want := range map[string]int64{"": -1, "3000": 3000, "x": -1, "-4": -1, "0": 0} {
		h.Set("Content-Length", v)
		if got := contentLength(h); got != want {
			t.Errorf("contentLength(%q) = %d, want %d", v, got, want)
		}
	}
}

// TestReadAnswerLyingLength: an announced length is the upstream's word (a
// tenant's own base URL can announce anything): one of the whole limit on an
// answer of a few bytes does not allocate the limit before the bytes arrive.
func TestReadAnswerLyingLength(t *testing.T) {
	const limit = 32 << 20
	allocated := uint64(math.MaxUint64)
	for range 3 { // the least of three: other goroutines of the binary allocate too
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := readAnswer(strings.NewReader("short"), limit, limit)
		runtime.ReadMemStats(&after)
		if err != nil || string(got) != "short" {
			t.Fatalf("read %q (err %v), want the 5 bytes sent", got, err)
		}
		allocated = min(allocated, after.TotalAlloc-before.TotalAlloc)
	}
	if allocated > 2<<20 {
		t.Errorf("an answer announcing %d bytes and sending 5 allocated %d bytes, want at most 2 MiB", limit, allocated)
	}
	big := bytes.Repeat([]byte("x"), maxPresize+maxPresize/2)
	if got, err := readAnswer(iotest.HalfReader(bytes.NewReader(big)), limit, int64(len(big))); err != nil || !bytes.Equal(got, big) {
		t.Errorf("an answer past maxPresize: read %d bytes (err %v), want the %d sent", len(got), err, len(big))
	}
}

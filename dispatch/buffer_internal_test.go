package dispatch

import (
	"bytes"
	"errors"
	"io"
	"net/http"
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

package cacheredis

import (
	"bytes"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/routing"
)

func TestNeighborCodec(t *testing.T) {
	for _, n := range []routing.Neighbor{
		{Key: "abc", Numbers: "0123", Vector: []float32{1, -2.5, float32(math.Inf(1)), 0}, Expires: time.UnixMilli(1764400000123).UTC()},
		{Key: "", Numbers: "", Vector: nil, Expires: time.UnixMilli(0).UTC()},
		{Key: string(make([]byte, 300)), Vector: make([]float32, 1024), Expires: time.UnixMilli(-5).UTC()},
	} {
		got, err := decodeNeighbor(encodeNeighbor(n))
		if err != nil {
			t.Fatal(err)
		}
		if got.Key != n.Key || got.Numbers != n.Numbers || !got.Expires.Equal(n.Expires) || len(got.Vector) != len(n.Vector) ||
			!slices.Equal(got.Vector, n.Vector) && len(n.Vector) > 0 {
			t.Fatalf("round trip of %+v gave %+v", n, got)
		}
	}
	for _, bad := range [][]byte{nil, {}, {2}, {1}, {1, 5, 'a'}, {1, 0, 0, 1, 2, 3}, append(encodeNeighbor(routing.Neighbor{Key: "k"}), 1)} {
		if _, err := decodeNeighbor(bad); err == nil {
			t.Fatalf("decodeNeighbor(%v) accepted malformed input", bad)
		}
	}
}

func f32bytes(v []float32) []byte {
	var b []byte
	for _, x := range v {
		u := math.Float32bits(x)
		b = append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	}
	return b
}

func FuzzDecodeNeighbor(f *testing.F) {
	f.Add(encodeNeighbor(routing.Neighbor{Key: "k", Numbers: "n", Vector: []float32{1, 2}, Expires: time.UnixMilli(1)}))
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := decodeNeighbor(b)
		if err != nil {
			return
		}
		// Varints may arrive non-canonical; what was decoded must survive a
		// re-encode exactly.
		again, err := decodeNeighbor(encodeNeighbor(n))
		if err != nil || again.Key != n.Key || again.Numbers != n.Numbers || !again.Expires.Equal(n.Expires) ||
			!bytes.Equal(f32bytes(again.Vector), f32bytes(n.Vector)) {
			t.Fatalf("decoded %+v does not survive a re-encode (%+v, %v)", n, again, err)
		}
	})
}

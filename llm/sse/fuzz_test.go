package sse

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
)

// FuzzSSE checks that the reader never panics, that the frames' Raws put
// together are a prefix of the input, and that reading byte by byte gives
// the same frames as reading the whole input at once.
func FuzzSSE(f *testing.F) {
	seeds := []string{
		"event: ping\ndata: {}\n\n",
		"data: a\ndata: b\n\n",
		"data: [DONE]\n\n",
		": comment\n\ndata: x",
		"event: a\r\ndata: x\r\n\r\n",
		"data: x\r\rdata: y\r",
		"\xEF\xBB\xBFdata: x\n\n",
		"id: 1\nretry: 5\ndata\n\n",
		"\r\n\r\n\n\r",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		whole := collect(t, NewReaderSize(bytes.NewReader(in), 1<<10))
		bytewise := collect(t, NewReaderSize(iotest.OneByteReader(bytes.NewReader(in)), 1<<10))
		if len(whole) != len(bytewise) {
			t.Fatalf("whole read gave %d frames, byte-wise %d", len(whole), len(bytewise))
		}
		rest := bytes.TrimPrefix(in, bom)
		for i, fr := range whole {
			if !bytes.Equal(fr.Raw, bytewise[i].Raw) || !bytes.Equal(fr.Data, bytewise[i].Data) || fr.Event != bytewise[i].Event {
				t.Fatalf("frame %d differs between whole and byte-wise reads", i)
			}
			if !bytes.HasPrefix(rest, fr.Raw) {
				t.Fatalf("frame %d Raw %q does not continue the input %q", i, fr.Raw, rest)
			}
			rest = rest[len(fr.Raw):]
			// Writing the frame back and reading it again keeps its data.
			again, err := NewReader(bytes.NewReader(AppendFrame(nil, fr.Event, fr.Data))).Next()
			if err != nil || !bytes.Equal(again.Data, fr.Data) {
				t.Fatalf("frame %d data %q does not survive a write and read: %q, %v", i, fr.Data, again.Data, err)
			}
		}
	})
}

func collect(t *testing.T, r *Reader) []Frame {
	var out []Frame
	for {
		fr, err := r.Next()
		if err == io.EOF || err == ErrTooLarge {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, fr)
	}
}

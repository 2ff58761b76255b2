package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReaderFrames(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Frame
	}{
		{
			name: "event and data",
			in:   "event: ping\ndata: {\"type\":\"ping\"}\n\n",
			want: []Frame{{Event: "ping", Data: []byte(`{"type":"ping"}`), Raw: []byte("event: ping\ndata: {\"type\":\"ping\"}\n\n")}},
		},
		{
			name: "multi-line data and id",
			in:   "id: 7\ndata: a\ndata:b\ndata:  c\n\n",
			want: []Frame{{ID: "7", Data: []byte("a\nb\n c"), Raw: []byte("id: 7\ndata: a\ndata:b\ndata:  c\n\n")}},
		},
		{
			name: "comments and keep-alives are not dispatched but kept in Raw",
			in:   ": OPENROUTER PROCESSING\n\n: x\ndata: 1\n\n\n\nevent: only\n\ndata: 2\n\n",
			want: []Frame{
				{Data: []byte("1"), Raw: []byte(": OPENROUTER PROCESSING\n\n: x\ndata: 1\n\n")},
				{Data: []byte("2"), Raw: []byte("\n\nevent: only\n\ndata: 2\n\n")},
			},
		},
		{
			name: "CRLF",
			in:   "event: a\r\ndata: x\r\n\r\ndata: y\r\n\r\n",
			want: []Frame{
				{Event: "a", Data: []byte("x"), Raw: []byte("event: a\r\ndata: x\r\n\r\n")},
				{Data: []byte("y"), Raw: []byte("data: y\r\n\r\n")},
			},
		},
		{
			name: "lone CR",
			in:   "data: x\r\rdata: y\r",
			want: []Frame{
				{Data: []byte("x"), Raw: []byte("data: x\r\r")},
				{Data: []byte("y"), Raw: []byte("data: y\r")},
			},
		},
		{
			name: "final frame without blank line",
			in:   "data: 1\n\ndata: 2",
			want: []Frame{
				{Data: []byte("1"), Raw: []byte("data: 1\n\n")},
				{Data: []byte("2"), Raw: []byte("data: 2")},
			},
		},
		{
			name: "final frame with one newline",
			in:   "data: [DONE]\n",
			want: []Frame{{Data: []byte("[DONE]"), Raw: []byte("data: [DONE]\n")}},
		},
		{
			name: "field without colon and unknown fields",
			in:   "data\nretry: 10\nfoo: bar\n\n",
			want: []Frame{{Data: []byte(""), Raw: []byte("data\nretry: 10\nfoo: bar\n\n")}},
		},
		{
			name: "leading BOM is dropped",
			in:   "\xEF\xBB\xBFdata: x\n\n",
			want: []Frame{{Data: []byte("x"), Raw: []byte("data: x\n\n")}},
		},
		{
			name: "id with NUL is ignored",
			in:   "id: a\x00b\ndata: x\n\n",
			want: []Frame{{Data: []byte("x"), Raw: []byte("id: a\x00b\ndata: x\n\n")}},
		},
		{
			name: "empty stream",
			in:   "",
			want: nil,
		},
	}
	for _, tt := range tests {
		for _, mode := range []string{"whole", "one byte"} {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				var src io.Reader = strings.NewReader(tt.in)
				if mode == "one byte" {
					src = iotest.OneByteReader(src)
				}
				got := readAll(t, NewReader(src))
				if len(got) != len(tt.want) {
					t.Fatalf("got %d frames %q, want %d", len(got), got, len(tt.want))
				}
				for i := range got {
					assertFrame(t, got[i], tt.want[i])
				}
			})
		}
	}
}

func readAll(t *testing.T, r *Reader) []Frame {
	t.Helper()
	var out []Frame
	for {
		f, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, f)
	}
}

func assertFrame(t *testing.T, got, want Frame) {
	t.Helper()
	if got.Event != want.Event || got.ID != want.ID || !bytes.Equal(got.Data, want.Data) || !bytes.Equal(got.Raw, want.Raw) {
		t.Errorf("frame = {Event:%q ID:%q Data:%q Raw:%q}, want {Event:%q ID:%q Data:%q Raw:%q}",
			got.Event, got.ID, got.Data, got.Raw, want.Event, want.ID, want.Data, want.Raw)
	}
}

func TestReaderLargeLine(t *testing.T) {
	big := strings.Repeat("x", 5<<20)
	r := NewReader(strings.NewReader("data: " + big + "\n\ndata: after\n\n"))
	f, err := r.Next()
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	if len(f.Data) != len(big) {
		t.Fatalf("data length = %d, want %d", len(f.Data), len(big))
	}
	f, err = r.Next()
	if err != nil || string(f.Data) != "after" {
		t.Fatalf("second frame = %q, %v", f.Data, err)
	}
}

func TestReaderTooLarge(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"long line", "data: " + strings.Repeat("x", 200) + "\n\n"},
		{"long frame of short lines", strings.Repeat("data: 0123456789\n", 20) + "\n"},
		{"long unterminated line", "data: " + strings.Repeat("x", 200)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReaderSize(strings.NewReader(tt.in), 100)
			if _, err := r.Next(); !errors.Is(err, ErrTooLarge) {
				t.Fatalf("err = %v, want ErrTooLarge", err)
			}
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("after ErrTooLarge: err = %v, want io.EOF", err)
			}
		})
	}
}

func TestReaderSourceError(t *testing.T) {
	boom := errors.New("connection reset")
	src := io.MultiReader(strings.NewReader("data: 1\n\ndata: 2"), iotest.ErrReader(boom))
	r := NewReader(src)
	if f, err := r.Next(); err != nil || string(f.Data) != "1" {
		t.Fatalf("first frame = %q, %v", f.Data, err)
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the source error (a cut frame is not delivered)", err)
	}
}

func TestFrameIsDone(t *testing.T) {
	tests := []struct {
		data string
		want bool
	}{
		{"[DONE]", true},
		{" [DONE] ", true},
		{"{}", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := (Frame{Data: []byte(tt.data)}).IsDone(); got != tt.want {
			t.Errorf("IsDone(%q) = %v, want %v", tt.data, got, tt.want)
		}
	}
}

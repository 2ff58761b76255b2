package sse

import (
	"bytes"
	"io"
)

// AppendFrame appends one frame to dst: an `event:` line when event is not
// empty, one `data:` line per line of data, and the terminating blank line.
func AppendFrame(dst []byte, event string, data []byte) []byte {
	if event != "" {
		dst = append(dst, "event: "...)
		dst = append(dst, event...)
		dst = append(dst, '\n')
	}
	for {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			break
		}
		dst = append(dst, "data: "...)
		dst = append(dst, data[:i]...)
		dst = append(dst, '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	dst = append(dst, "data: "...)
	dst = append(dst, data...)
	return append(dst, '\n', '\n')
}

// WriteFrame writes one frame to w in a single Write call.
func WriteFrame(w io.Writer, event string, data []byte) error {
	_, err := w.Write(AppendFrame(make([]byte, 0, len(event)+len(data)+16), event, data))
	return err
}

package sse

import (
	"bytes"
	"io"
)

// DefaultMaxFrame is the default limit on one line and on one frame: large
// enough for a whole tool-call argument or an image echoed in one chunk.
const DefaultMaxFrame = 16 << 20

const (
	initialBuf = 4 << 10
	// maxEmptyReads bounds successive (0, nil) reads before giving up, as
	// bufio does.
	maxEmptyReads = 100
)

var bom = []byte{0xEF, 0xBB, 0xBF}

// Reader parses an event stream frame by frame. It is not safe for
// concurrent use.
type Reader struct {
	src      io.Reader
	buf      []byte
	r, w     int   // unread bytes are buf[r:w]
	err      error // sticky error from src
	max      int
	started  bool // the leading BOM check has been done
	finished bool
}

// NewReader returns a Reader of src with the DefaultMaxFrame limit.
func NewReader(src io.Reader) *Reader {
	return NewReaderSize(src, DefaultMaxFrame)
}

// NewReaderSize returns a Reader of src whose lines and frames may be at most
// max bytes long; max <= 0 means DefaultMaxFrame.
func NewReaderSize(src io.Reader, max int) *Reader {
	if max <= 0 {
		max = DefaultMaxFrame
	}
	return &Reader{src: src, max: max}
}

// Next returns the next frame that carries data. Frames without any data line
// (comments, keep-alives, bare id or retry fields) are not dispatched, as the
// event-stream grammar requires; their bytes lead the Raw of the next frame,
// so the Raws of all frames put together are the stream itself (but for a
// leading byte-order mark and anything after the last frame). At the end of the stream Next returns
// io.EOF; a final frame not followed by a blank line is returned first. Any
// other error (ErrTooLarge, or the source's read error) ends the stream.
func (r *Reader) Next() (Frame, error) {
	if r.finished {
		return Frame{}, io.EOF
	}
	var (
		f       Frame
		raw     []byte
		data    []byte
		hasData bool
	)
	for {
		line, full, err := r.readLine()
		if err != nil {
			r.finished = true
			if err == io.EOF && hasData {
				f.Data, f.Raw = data, raw
				return f, nil
			}
			return Frame{}, err
		}
		if len(raw)+len(full) > r.max {
			r.finished = true
			return Frame{}, ErrTooLarge
		}
		raw = append(raw, full...)
		if len(line) == 0 {
			if hasData {
				f.Data, f.Raw = data, raw
				return f, nil
			}
			// A blank line ends a frame with no data: nothing is dispatched,
			// but its bytes stay in Raw, so the next frame carries them.
			f, data = Frame{}, data[:0]
			continue
		}
		field, value := splitField(line)
		switch field {
		case "":
			// comment line
		case "event":
			f.Event = string(value)
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				f.ID = string(value)
			}
		}
	}
}

// splitField splits a non-empty line into its field name and value. A comment
// line yields an empty field name.
func splitField(line []byte) (string, []byte) {
	if line[0] == ':' {
		return "", nil
	}
	i := bytes.IndexByte(line, ':')
	if i < 0 {
		return fieldName(line), nil
	}
	value := line[i+1:]
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	return fieldName(line[:i]), value
}

// fieldName interns the field names the reader acts on, so that matching them
// does not allocate.
func fieldName(b []byte) string {
	switch string(b) {
	case "event":
		return "event"
	case "data":
		return "data"
	case "id":
		return "id"
	}
	return "other"
}

// readLine returns the next line without its terminator (line) and with it
// (full). Both alias the internal buffer and are valid until the next call.
// At EOF a trailing unterminated line is returned first, then io.EOF.
func (r *Reader) readLine() (line, full []byte, err error) {
	scanned := 0 // bytes of buf[r.r:r.w] known to hold no line end
	for {
		if !r.started && (r.w-r.r >= len(bom) || r.err != nil) {
			r.started = true
			if bytes.HasPrefix(r.buf[r.r:r.w], bom) {
				r.r += len(bom)
			}
		}
		if r.started {
			unread := r.buf[r.r:r.w]
			if i := bytes.IndexAny(unread[scanned:], "\r\n"); i >= 0 {
				p := scanned + i
				switch {
				case unread[p] == '\n':
					return r.take(p, p+1)
				case p+1 < len(unread):
					if unread[p+1] == '\n' {
						return r.take(p, p+2)
					}
					return r.take(p, p+1)
				case r.err != nil:
					return r.take(p, p+1)
				}
				// A CR is the last buffered byte: read on to see if LF follows.
				scanned = p
			} else {
				scanned = len(unread)
				if r.err != nil {
					if len(unread) > 0 {
						return r.take(len(unread), len(unread))
					}
					return nil, nil, r.err
				}
			}
			if r.w-r.r > r.max {
				return nil, nil, ErrTooLarge
			}
		}
		r.fill()
	}
}

// take consumes n bytes of which the first end are the line's content.
func (r *Reader) take(end, n int) (line, full []byte, err error) {
	full = r.buf[r.r : r.r+n]
	line = full[:end]
	r.r += n
	return line, full, nil
}

// fill reads once more from the source into the buffer, compacting or
// growing it as needed. Errors are kept in r.err.
func (r *Reader) fill() {
	if r.r > 0 && r.r == r.w {
		r.r, r.w = 0, 0
	}
	if r.w == len(r.buf) {
		if r.r > 0 && r.r >= len(r.buf)/2 {
			copy(r.buf, r.buf[r.r:r.w])
			r.w -= r.r
			r.r = 0
		} else {
			size := 2 * len(r.buf)
			if size < initialBuf {
				size = initialBuf
			}
			nb := make([]byte, size)
			copy(nb, r.buf[r.r:r.w])
			r.w -= r.r
			r.r = 0
			r.buf = nb
		}
	}
	for range maxEmptyReads {
		n, err := r.src.Read(r.buf[r.w:])
		if n < 0 || n > len(r.buf)-r.w {
			r.err = io.ErrNoProgress
			return
		}
		r.w += n
		if err != nil {
			r.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.err = io.ErrNoProgress
}

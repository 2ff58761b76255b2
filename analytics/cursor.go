package analytics

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Cursor is the position after the last row of a page: rows strictly older
// than (TimeMs, EventID) come next.
type Cursor struct {
	TimeMs  int64
	EventID string
}

// Encode returns the opaque form handed to clients.
func (c Cursor) Encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.TimeMs, 10) + ":" + c.EventID))
}

// CursorAfter returns the cursor that continues after r.
func CursorAfter(r Request) Cursor {
	return Cursor{TimeMs: r.Time.UnixMilli(), EventID: r.EventID}
}

// CursorBefore returns the cursor that continues with the rows older than
// the Unix millisecond ms (none at ms itself): "\x00" sorts before every
// event id.
func CursorBefore(ms int64) Cursor { return Cursor{TimeMs: ms, EventID: "\x00"} }

// ParseCursor decodes s; "" gives the zero Cursor and ok false.
func ParseCursor(s string) (c Cursor, ok bool, err error) {
	if s == "" {
		return Cursor{}, false, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, false, fmt.Errorf("%w: %w", ErrInvalidCursor, err)
	}
	ts, id, found := strings.Cut(string(raw), ":")
	if !found || id == "" || !utf8.ValidString(id) { // event ids are UTF-8
		return Cursor{}, false, ErrInvalidCursor
	}
	ms, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || ms < 0 {
		return Cursor{}, false, ErrInvalidCursor
	}
	return Cursor{TimeMs: ms, EventID: id}, true, nil
}

// Before reports whether a row at (timeMs, eventID) comes after the cursor in
// newest-first order, i.e. is strictly older than it.
func (c Cursor) Before(timeMs int64, eventID string) bool {
	return timeMs < c.TimeMs || (timeMs == c.TimeMs && eventID < c.EventID)
}

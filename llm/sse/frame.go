package sse

import "bytes"

// Frame is one dispatched server-sent event.
type Frame struct {
	// Event is the value of the last event field, "" when none was sent.
	Event string
	// Data is the frame's data lines joined with "\n".
	Data []byte
	// ID is the value of the last id field, "" when none was sent.
	ID string
	// Raw is the frame exactly as it arrived: every line, comment lines
	// included, and the terminating blank line (absent only for a final frame
	// that ended at EOF), preceded by any undispatched comment-only or empty
	// frames since the previous frame.
	Raw []byte
}

// doneMarker is the sentinel OpenAI-style streams send as their last data.
var doneMarker = []byte("[DONE]")

// IsDone reports whether the frame is the OpenAI-style `data: [DONE]` end marker.
func (f Frame) IsDone() bool {
	return bytes.Equal(bytes.TrimSpace(f.Data), doneMarker)
}

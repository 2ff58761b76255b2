// Package sse reads and writes Server-Sent Events streams, the framing every
// streaming LLM wire format uses.
//
// Ring: kernel. It performs no I/O of its own: it reads from an io.Reader and
// writes to an io.Writer handed to it, and imports nothing of Heddle's.
//
// The reader follows the WHATWG event-stream grammar (event, data, id, retry
// fields; comment lines; LF, CRLF or CR line ends; multi-line data) with two
// choices made for LLM gateways: a final frame that is not followed by a blank
// line is still delivered, and every frame keeps its original bytes (Raw) so a
// same-format proxy can forward it unchanged.
package sse

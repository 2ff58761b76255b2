package llm

// EventType is the kind of a canonical stream event.
type EventType string

// Canonical stream events, in the order a well-formed stream emits them:
// message_start, then for every block block_start, deltas, block_stop; then
// message_delta (stop reason and usage) and done. error may end a stream at
// any point.
const (
	EventMessageStart EventType = "message_start"
	EventBlockStart   EventType = "block_start"
	EventTextDelta    EventType = "text_delta"
	EventToolDelta    EventType = "tool_delta"     // tool-call argument JSON fragment
	EventThinkDelta   EventType = "thinking_delta" // reasoning text or signature fragment
	EventBlockStop    EventType = "block_stop"
	EventMessageDelta EventType = "message_delta"
	EventDone         EventType = "done"
	EventError        EventType = "error"
	// EventPing is a keep-alive; encoders may drop it.
	EventPing EventType = "ping"
)

// Event is one canonical stream event.
type Event struct {
	Type EventType

	// MessageStart: ID, Model and (input) Usage as known so far.
	ID    string
	Model string

	// Block events: Index is the block's position in the message; Block
	// (on block_start) says what kind of block it is: a text, thinking or
	// tool_call Part with ID and Name set for tool calls.
	Index int
	Block *Part

	// Deltas: Text carries text, reasoning text or tool-argument JSON;
	// Signature carries a reasoning signature fragment.
	Text      string
	Signature string

	// MessageDelta: StopReason and cumulative Usage.
	StopReason   StopReason
	StopSequence string
	Usage        *Usage

	// Error: a message and a code for the caller.
	ErrMessage string
	ErrCode    string

	// Raw is the original SSE frame (with its trailing blank line) when this
	// event was decoded from a stream, so a same-format encoder can forward it
	// unchanged. Decoders that emit several events from one frame set Raw on
	// the first only.
	Raw []byte
}

// IsContent reports whether e carries model output (the commit point of a stream).
func (e Event) IsContent() bool {
	switch e.Type {
	case EventBlockStart, EventTextDelta, EventToolDelta, EventThinkDelta:
		return true
	}
	return false
}

package dispatchtest

import (
	"strconv"
	"strings"
	"time"
)

// Fault is a failure injected into an answer after it started.
type Fault int

// Faults.
const (
	FaultNone  Fault = iota
	FaultStall       // go silent until the client leaves
	FaultCut         // drop the connection
)

// Step scripts one answer of the fake upstream.
type Step struct {
	// Status, when 300 or more, answers with that error status and the
	// format's error body.
	Status int
	// RetryAfter is the Retry-After header of an error answer.
	RetryAfter string
	// Message is the error body's message (default "scripted <status>").
	Message string
	// Reset drops the connection with a TCP reset before any response byte.
	Reset bool
	// Delay waits before the response headers (a slow first byte).
	Delay time.Duration
	// Text is the answer's text (default "Hello from <model>").
	Text string
	// Tool, when set, makes the answer a tool call instead of text.
	Tool *ToolCall
	// Fault and After inject a stall or a cut: a stream plays After frames
	// first; a non-streaming answer sends half its body first.
	Fault Fault
	After int
	// InputTokens and OutputTokens are the usage reported (default 10 and 5).
	InputTokens  int
	OutputTokens int
}

// ToolCall is a scripted tool call.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON object text
}

// OK answers with text (default "Hello from <model>").
func OK(text string) Step { return Step{Text: text} }

// Tool answers with one tool call.
func Tool(id, name, args string) Step {
	return Step{Tool: &ToolCall{ID: id, Name: name, Arguments: args}}
}

// Status answers with an error status.
func Status(code int) Step { return Step{Status: code} }

// RateLimited answers 429 with a Retry-After header.
func RateLimited(retryAfter string) Step { return Step{Status: 429, RetryAfter: retryAfter} }

// ModelNotFound answers 404.
func ModelNotFound() Step { return Step{Status: 404, Message: "model not found"} }

// Billing answers 402.
func Billing() Step { return Step{Status: 402, Message: "insufficient quota"} }

// Reset drops the connection before any header.
func Reset() Step { return Step{Reset: true} }

// SlowFirstByte waits d before answering.
func SlowFirstByte(d time.Duration) Step { return Step{Delay: d} }

// StallAfter plays n stream frames (half the body when not streaming), then
// goes silent until the client leaves.
func StallAfter(n int) Step { return Step{Fault: FaultStall, After: n} }

// CutAfter plays n stream frames (half the body when not streaming), then
// drops the connection.
func CutAfter(n int) Step { return Step{Fault: FaultCut, After: n} }

func (s Step) text(model string) string {
	if s.Text != "" {
		return s.Text
	}
	return "Hello from " + model
}

func (s Step) usage() (in, out int) {
	in, out = s.InputTokens, s.OutputTokens
	if in == 0 {
		in = 10
	}
	if out == 0 {
		out = 5
	}
	return in, out
}

func (s Step) message() string {
	if s.Message != "" {
		return s.Message
	}
	return "scripted " + strconv.Itoa(s.Status)
}

// words splits text into stream chunks, keeping the spaces: "a b" -> "a", " b".
func words(text string) []string {
	var out []string
	for len(text) > 0 {
		i := strings.IndexByte(text[1:], ' ')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

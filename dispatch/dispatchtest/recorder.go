package dispatchtest

import (
	"errors"
	"strings"
	"sync"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
)

// ErrClientGone is what a Recorder returns once FailAfter writes were made.
var ErrClientGone = errors.New("dispatchtest: client went away")

// Recorder is a dispatch.StreamWriter (and Committer) that records what the
// client would receive.
type Recorder struct {
	mu      sync.Mutex
	events  []llm.Event
	flushes int
	commits []dispatch.Target
	fbs     []bool
	// FailAfter, when > 0, makes every Write after that many fail with
	// ErrClientGone.
	FailAfter int
}

var (
	_ dispatch.StreamWriter = (*Recorder)(nil)
	_ dispatch.Committer    = (*Recorder)(nil)
)

// Write records e.
func (r *Recorder) Write(e llm.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.FailAfter > 0 && len(r.events) >= r.FailAfter {
		return ErrClientGone
	}
	r.events = append(r.events, e)
	return nil
}

// Flush counts flushes.
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushes++
	return nil
}

// Commit records the commit point.
func (r *Recorder) Commit(t dispatch.Target, fallback bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.commits = append(r.commits, t)
	r.fbs = append(r.fbs, fallback)
}

// Events returns the written events.
func (r *Recorder) Events() []llm.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]llm.Event(nil), r.events...)
}

// Types returns the written events' types, in order.
func (r *Recorder) Types() []llm.EventType {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]llm.EventType, len(r.events))
	for i, e := range r.events {
		out[i] = e.Type
	}
	return out
}

// Text joins the text deltas the client received.
func (r *Recorder) Text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, e := range r.events {
		if e.Type == llm.EventTextDelta {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

// Flushes is how many times Flush was called.
func (r *Recorder) Flushes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flushes
}

// Commits returns the targets Commit was called with, and the fallback flags.
func (r *Recorder) Commits() ([]dispatch.Target, []bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]dispatch.Target(nil), r.commits...), append([]bool(nil), r.fbs...)
}

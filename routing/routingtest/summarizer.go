package routingtest

import (
	"context"
	"sync"
	"time"

	"github.com/heddle-gw/heddle/llm"
)

// Summarizer is a scripted routing.Summarizer: it waits Delay (returning
// early when ctx ends, unless IgnoreContext), then returns Text and Err. It
// records what it was given. Safe for concurrent use.
type Summarizer struct {
	Text          string
	Err           error
	Delay         time.Duration
	IgnoreContext bool
	// Mutate, when set, scribbles over the messages it is given (to prove
	// Handover hands over a copy).
	Mutate bool

	mu  sync.Mutex
	got [][]llm.Message
}

// Summarize implements routing.Summarizer.
func (s *Summarizer) Summarize(ctx context.Context, older []llm.Message) (string, error) {
	s.mu.Lock()
	s.got = append(s.got, older)
	s.mu.Unlock()
	if s.Mutate {
		for i := range older {
			older[i].Role = "mutated"
			for j := range older[i].Content {
				older[i].Content[j].Text = "mutated"
			}
		}
	}
	if s.Delay > 0 {
		t := time.NewTimer(s.Delay)
		defer t.Stop()
		if s.IgnoreContext {
			<-t.C
		} else {
			select {
			case <-t.C:
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
	}
	return s.Text, s.Err
}

// Calls returns the message slices Summarize received, in order.
func (s *Summarizer) Calls() [][]llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]llm.Message(nil), s.got...)
}

package dispatch_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/openaichat"
)

// eventsCodec decodes a body of JSON lines, one canonical event per line; it
// is how these tests script exact event sequences, including error events.
type eventsCodec struct{ *openaichat.Codec }

func (eventsCodec) NewStreamDecoder(r io.Reader) llm.StreamDecoder {
	return &lineDecoder{s: bufio.NewScanner(r)}
}

type lineDecoder struct{ s *bufio.Scanner }

func (d *lineDecoder) Next() (llm.Event, error) {
	if !d.s.Scan() {
		if err := d.s.Err(); err != nil {
			return llm.Event{}, err
		}
		return llm.Event{}, io.EOF
	}
	var e llm.Event
	err := json.Unmarshal(d.s.Bytes(), &e)
	e.Raw = append([]byte(nil), d.s.Bytes()...)
	return e, err
}

// linesProvider answers every call with the next scripted body.
type linesProvider struct{ bodies []string }

func (p *linesProvider) Send(_ context.Context, call *dispatch.Call) (*dispatch.Reply, error) {
	body := "{\"Type\":\"message_start\"}\n{\"Type\":\"block_start\"}\n{\"Type\":\"text_delta\",\"Text\":\"ok\"}\n{\"Type\":\"done\"}\n"
	if len(p.bodies) > 0 {
		body, p.bodies = p.bodies[0], p.bodies[1:]
	}
	return &dispatch.Reply{Status: 200, Body: io.NopCloser(strings.NewReader(body))}, nil
}

func lines(types ...string) string {
	var b strings.Builder
	for _, t := range types {
		ev := llm.Event{Type: llm.EventType(t)}
		if t == "text_delta" {
			ev.Text = "x"
		}
		if t == "error" {
			ev.ErrCode, ev.ErrMessage = "overloaded_error", "busy"
		}
		raw, _ := json.Marshal(ev)
		b.Write(raw)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestCommitGate(t *testing.T) {
	tests := []struct {
		name      string
		bodies    []string
		failAfter int
		events    []string // attempt events
		client    []llm.EventType
		err       error
		committed bool
		// interrupted is Result.Interrupted: why a committed stream failed.
		interrupted dispatch.Reason
	}{
		{
			name:      "held events are written at the first content, in order",
			bodies:    []string{lines("message_start", "ping", "block_start", "text_delta", "block_stop", "message_delta", "done")},
			events:    []string{"a:served:"},
			client:    []llm.EventType{"message_start", "ping", "block_start", "text_delta", "block_stop", "message_delta", "done"},
			committed: true,
		},
		{
			name:      "an upstream error event before content fails over, unseen by the client",
			bodies:    []string{lines("message_start", "ping", "error"), lines("message_start", "block_start", "text_delta", "done")},
			events:    []string{"a:failed:upstream_5xx", "b:served:"},
			client:    []llm.EventType{"message_start", "block_start", "text_delta", "done"},
			committed: true,
		},
		{
			name:   "an upstream error event after content is forwarded and ends the stream as committed",
			bodies: []string{lines("message_start", "block_start", "text_delta", "error", "text_delta")},
			events: []string{"a:failed:committed"},
			client: []llm.EventType{"message_start", "block_start", "text_delta", "error"},
			err:    dispatch.ErrCommitted, committed: true, interrupted: dispatch.ReasonUpstreamErrorEvent,
		},
		{
			name:      "a well-formed stream without content is released at its end",
			bodies:    []string{lines("message_start", "message_delta", "done")},
			events:    []string{"a:served:"},
			client:    []llm.EventType{"message_start", "message_delta", "done"},
			committed: true,
		},
		{
			name:      "a stream that ends before content and without done fails over",
			bodies:    []string{lines("message_start", "ping")},
			events:    []string{"a:failed:transport", "b:served:"},
			client:    []llm.EventType{"message_start", "block_start", "text_delta", "done"},
			committed: true,
		},
		{
			name:   "a stream cut after content gets a canonical error event",
			bodies: []string{lines("message_start", "block_start", "text_delta")},
			events: []string{"a:failed:committed"},
			client: []llm.EventType{"message_start", "block_start", "text_delta", "error"},
			err:    dispatch.ErrCommitted, committed: true, interrupted: dispatch.ReasonTransport,
		},
		{
			name:      "a client gone after commit aborts without failover",
			bodies:    []string{lines("message_start", "block_start", "text_delta", "text_delta", "done")},
			failAfter: 3,
			events:    []string{"a:aborted:canceled"},
			client:    []llm.EventType{"message_start", "block_start", "text_delta"},
			err:       dispatchtest.ErrClientGone, committed: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, dispatch.Config{}, "a", "b")
			h.exec = dispatch.NewExecutor(dispatch.Config{}, dispatch.Deps{
				Providers:   map[string]dispatch.Provider{"openai": &linesProvider{bodies: tc.bodies}},
				Credentials: h.creds, Sink: h.sink, Clock: h.clock,
				Codecs: map[llm.Format]llm.Codec{llm.FormatChat: eventsCodec{openaichat.New()}},
			})
			rec := &dispatchtest.Recorder{FailAfter: tc.failAfter}
			res, err := h.exec.Run(context.Background(), h.meta, h.plan("a", "b"), chatOp(true), rec)
			if !errors.Is(err, tc.err) && !(tc.err == nil && err == nil) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if got := brief(h.sink.Events()); !slices.Equal(got, tc.events) {
				t.Errorf("events %v, want %v", got, tc.events)
			}
			if got := rec.Types(); !slices.Equal(got, tc.client) {
				t.Errorf("client got %v, want %v", got, tc.client)
			}
			if res.Committed != tc.committed || res.Interrupted != tc.interrupted {
				t.Errorf("committed %v interrupted %q, want %v %q", res.Committed, res.Interrupted, tc.committed, tc.interrupted)
			}
			if commits, _ := rec.Commits(); len(commits) != 1 {
				t.Errorf("Commit called %d times", len(commits))
			}
			for _, e := range rec.Events() {
				if e.Type == llm.EventError && e.ErrCode == "upstream_stream_interrupted" && e.Raw != nil {
					t.Errorf("synthesised error event carries Raw")
				}
				if e.Type != llm.EventError && e.Raw == nil {
					t.Errorf("forwarded %s without the decoder's Raw", e.Type)
				}
			}
		})
	}
}

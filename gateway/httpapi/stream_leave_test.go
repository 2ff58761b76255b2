package httpapi_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/internal/testwait"
	"github.com/heddle-gw/heddle/llm"
)

// streamer is an upstream that streams text deltas until its context ends,
// then reports why on left.
type streamer struct{ left chan error }

func (s *streamer) Run(ctx context.Context, _ dispatch.Meta, _ dispatch.Plan, op *dispatch.Operation, sw dispatch.StreamWriter) (*dispatch.Result, error) {
	sw.(dispatch.Committer).Commit(dispatch.Target{Format: llm.FormatChat, Provider: "openai", Model: "gpt-5-mini"}, false)
	events := []llm.Event{{Type: llm.EventMessageStart, ID: "chatcmpl-1", Model: "gpt-5-mini"}, {Type: llm.EventBlockStart, Block: &llm.Part{Type: llm.PartText}}}
	for i := 0; ; i++ {
		e := llm.Event{Type: llm.EventTextDelta, Text: "word "}
		if i < len(events) {
			e = events[i]
		}
		err := sw.Write(e)
		if err == nil {
			err = sw.Flush()
		}
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			s.left <- err
			return nil, fmt.Errorf("test upstream: %w", err)
		}
	}
}

// TestStreamEndsWhenTheCallerLeaves: a caller that reads the start of a
// stream and hangs up ends the turn (its context is cancelled), and the
// turn is still recorded.
func TestStreamEndsWhenTheCallerLeaves(t *testing.T) {
	up := &streamer{left: make(chan error, 1)}
	s := newServerOver(t, 1<<20, up)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.app.Listener(ln) }()
	t.Cleanup(func() { _ = s.app.Shutdown() })
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	body := `{"model":"gpt-5-mini","stream":true,"messages":[{"role":"user","content":"talk"}]}`
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", testKey, len(body), body)
	r := bufio.NewReader(conn)
	status, err := r.ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		t.Fatalf("status line %q: %v", status, err)
	}
	for seen := ""; !strings.Contains(seen, "word"); {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		seen += line
	}
	_ = conn.Close()
	select {
	case err := <-up.left:
		if err == nil {
			t.Fatal("the upstream stopped without an error")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the turn went on streaming after the caller left")
	}
	testwait.Until(t, 30*time.Second, "the turn's request row", func() bool { return len(s.rec.rows()) > 0 })
	if rows := s.rec.rows(); len(rows) != 1 || !rows[0].Stream {
		t.Fatalf("request rows: %+v", rows)
	}
}

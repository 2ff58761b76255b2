package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// TestConcurrentTurnsOutliveRequestBuffers runs streamed and whole turns
// of both chat formats on many keep-alive connections at once, with a
// caller header of each turn's own, and checks every answer, every stored
// request row's end user and every server span. The server reuses a
// request's buffers (its context, header and body) as soon as the answer
// was written: for the connection's next request, and with
// ReduceMemoryUsage for another connection's, while the turn's analytics
// rows, request log line and span are still on their way, so no string of
// theirs may point into those buffers. (Checked by taking the
// strings.Clone off serveTurn's forwarded headers: end users are then
// stored 0 or 5 times, with ReduceMemoryUsage or without, and -race
// reports the journal's encoder racing the next header parse.)
func TestConcurrentTurnsOutliveRequestBuffers(t *testing.T) {
	s, rcv := tracedStack(t, nil)
	const workers, turns = 16, 12
	var wg sync.WaitGroup
	errs := make(chan error, workers*turns)
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range turns {
				stream := (g+i)%2 == 0
				path := "/v1/chat/completions"
				body := fmt.Sprintf(`{"model":"gpt-5-mini","stream":%v,"messages":[{"role":"user","content":"hi %d %d %s"}]}`,
					stream, g, i, strings.Repeat("x", g*37))
				if g%4 == 1 {
					path = "/v1/messages"
					body = fmt.Sprintf(`{"model":"gpt-5-mini","max_tokens":50,"stream":%v,"messages":[{"role":"user","content":"hi %d %d"}]}`, stream, g, i)
				}
				req, _ := http.NewRequest("POST", s.heddle+path, strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+s.key)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Anthropic-Version", "2023-06-01")
				req.Header.Set("X-Heddle-User", fmt.Sprintf("user-%d-%d", g, i))
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- err
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				end := strings.Contains(string(b), "[DONE]") || strings.Contains(string(b), "message_stop")
				if resp.StatusCode != 200 || (stream && !end) {
					errs <- fmt.Errorf("%s stream=%v: %d %s", path, stream, resp.StatusCode, b)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Every turn's request row, each with the end user it sent.
	var users map[string]int
	testwait.Until(t, time.Minute, "every turn's request row stored", func() bool {
		users = storedUsers(t, s)
		rows := 0
		for _, k := range users {
			rows += k
		}
		return rows >= workers*turns
	})
	for g := range workers {
		for i := range turns {
			if u := fmt.Sprintf("user-%d-%d", g, i); users[u] != 1 {
				t.Errorf("end user %s stored %d times, want 1", u, users[u])
			}
		}
	}
	flush(t, s)
	n := 0
	for _, e := range rcv.spans() {
		if !strings.HasPrefix(e.span.Name, "POST ") {
			continue
		}
		n++
		a := attrMap(e.span.Attributes)
		if r := a["http.route"]; a["http.request.method"] != "POST" || (r != "/v1/chat/completions" && r != "/v1/messages") {
			t.Errorf("server span %q: method %q route %q", e.span.Name, a["http.request.method"], r)
		}
	}
	if n != workers*turns {
		t.Errorf("%d POST server spans, want %d", n, workers*turns)
	}
}

// storedUsers counts the end users of the organisation's stored requests.
func storedUsers(t *testing.T, s *benchStack) map[string]int {
	t.Helper()
	now := time.Now()
	f := analytics.RequestFilter{From: now.Add(-time.Hour), To: now.Add(time.Hour)}
	users := map[string]int{}
	for cursor := ""; ; {
		page, err := s.c.reader.ListRequests(context.Background(), s.actor.OrgID, f, cursor, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Requests {
			users[r.User]++
		}
		if cursor = page.Next; cursor == "" {
			return users
		}
	}
}

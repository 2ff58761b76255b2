package dispatch_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/dispatch/provider/anthropic"
	"github.com/heddle-gw/heddle/llm"
)

const anthropicBody = `{"model":"claude-requested","max_tokens":64,"stream":%s,"messages":[{"role":"user","content":"hi"}],"x_new_beta_field":1}`

// anthropicHarness adds an Anthropic Messages target "m" to a harness.
func anthropicHarness(t *testing.T) *harness {
	h := newHarness(t, dispatch.Config{}, "a", "m")
	h.creds.Set("anthropic", dispatch.Credential{ID: "cred-1", Secret: "sk-ant-test"})
	h.target["m"] = dispatch.Target{Model: "model-m", Provider: "anthropic", Upstream: "m",
		Format: llm.FormatAnthropic, BaseURL: h.ups["m"].URL}
	h.exec = dispatch.NewExecutor(dispatch.Config{FirstByteTimeout: testTimeout, StreamIdleTimeout: testTimeout, NonStreamTimeout: testTimeout},
		dispatch.Deps{
			Providers:   map[string]dispatch.Provider{"openai": openaiProvider(), "anthropic": anthropic.New(anthropic.Config{}, nil)},
			Credentials: h.creds, Codecs: codecs(), Sink: h.sink, Clock: h.clock, Pricer: pricer{},
			Rand: dispatchtest.Rand(jitter),
		})
	return h
}

func anthropicOp(stream bool) *dispatch.Operation {
	s := "false"
	if stream {
		s = "true"
	}
	return &dispatch.Operation{
		Purpose: dispatch.PurposeMain, Inbound: llm.FormatAnthropic, Stream: stream,
		RawBody: []byte(strings.Replace(anthropicBody, "%s", s, 1)),
		Header:  http.Header{"Anthropic-Beta": {"tools-2099"}, "Anthropic-Version": {"2023-06-01"}},
		Request: &llm.Request{Model: "claude-requested", MaxTokens: 64, Stream: stream, Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "hi"}}}}},
	}
}

// direct fetches what the fake upstream sends for body, bypassing Heddle.
func direct(t *testing.T, u *dispatchtest.Upstream, body []byte) []byte {
	resp, err := http.Post(u.URL+"/v1/messages", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b
}

// TestAnthropicFastPath: same-format streams reach the client as the
// upstream's exact bytes (through Raw), whole answers as the upstream's body;
// the caller's beta headers reach the upstream.
func TestAnthropicFastPath(t *testing.T) {
	for _, stream := range []bool{false, true} {
		h := anthropicHarness(t)
		rec := &dispatchtest.Recorder{}
		var out dispatch.StreamWriter
		if stream {
			out = rec
		}
		res, err := h.exec.Run(context.Background(), h.meta, h.plan("m"), anthropicOp(stream), out)
		if err != nil {
			t.Fatal(err)
		}
		sent := h.ups["m"].Requests()[0]
		want := direct(t, h.ups["m"], sent.Body)
		if !bytes.Contains(sent.Body, []byte(`"x_new_beta_field":1`)) || sent.Model != "m" ||
			sent.Header.Get("Anthropic-Beta") != "tools-2099" || sent.Header.Get("X-Api-Key") != "sk-ant-test" {
			t.Errorf("stream=%v: sent %s with %v", stream, sent.Body, sent.Header)
		}
		if !stream {
			if !bytes.Equal(res.RawBody, want) || res.Response.Content[0].Text != "Hello from m" {
				t.Errorf("raw body %s, want %s", res.RawBody, want)
			}
			continue
		}
		var got []byte
		for _, e := range rec.Events() {
			got = append(got, e.Raw...)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("client bytes differ from the upstream's:\n got %q\nwant %q", got, want)
		}
		if res.Usage != (llm.Usage{Input: 10, Output: 5}) || rec.Text() != "Hello from m" {
			t.Errorf("usage %+v text %q", res.Usage, rec.Text())
		}
	}
}

// TestAnthropicFailoverAcrossFormats: an overloaded Anthropic target fails
// over to an OpenAI Chat one before commit; the client's stream starts with
// the fallback's events and the commit names the fallback.
func TestAnthropicFailoverAcrossFormats(t *testing.T) {
	h := anthropicHarness(t)
	h.ups["m"].Script("", dispatchtest.Status(529))
	rec := &dispatchtest.Recorder{}
	res, err := h.exec.Run(context.Background(), h.meta, h.plan("m", "a"), anthropicOp(true), rec)
	if err != nil {
		t.Fatal(err)
	}
	h.checkEvents(true, []wantEvent{
		{up: "m", outcome: dispatch.OutcomeFailed, reason: dispatch.ReasonUpstream5xx, status: 529},
		{up: "a", outcome: dispatch.OutcomeServed, status: 200, served: true},
	})
	commits, fbs := rec.Commits()
	if !res.FallbackUsed || len(commits) != 1 || commits[0] != h.target["a"] || !fbs[0] || rec.Text() != "Hello from a" {
		t.Fatalf("fallback %v commits %v %v text %q", res.FallbackUsed, commits, fbs, rec.Text())
	}
	if sent := h.ups["a"].Requests(); len(sent) != 1 || !bytes.Contains(sent[0].Body, []byte(`"model":"a"`)) {
		t.Fatalf("fallback request %+v", sent)
	}
}

// TestAnthropicCommitted: an Anthropic stream cut after its first text delta
// is not retried; the client got the first word and an error event.
func TestAnthropicCommitted(t *testing.T) {
	h := anthropicHarness(t)
	h.ups["m"].Script("", dispatchtest.CutAfter(4)) // message_start, ping, block_start, "Hello"
	rec := &dispatchtest.Recorder{}
	res, err := h.exec.Run(context.Background(), h.meta, h.plan("m", "a"), anthropicOp(true), rec)
	if err == nil || !res.Committed {
		t.Fatalf("err %v committed %v", err, res.Committed)
	}
	if got := brief(h.sink.Events()); !slices.Equal(got, []string{"m:failed:committed"}) {
		t.Errorf("events %v", got)
	}
	types := rec.Types()
	if rec.Text() != "Hello" || types[len(types)-1] != llm.EventError || len(h.ups["a"].Requests()) != 0 {
		t.Errorf("client %v %q, fallback requests %d", types, rec.Text(), len(h.ups["a"].Requests()))
	}
	if ev := h.sink.Events()[0]; ev.Usage.Input != 10 {
		t.Errorf("committed attempt usage %+v, want the input tokens seen", ev.Usage)
	}
}

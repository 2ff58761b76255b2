package routing_test

import (
	"net/http"
	"testing"
	"unicode/utf8"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// FuzzSessionAndKeys feeds caller-controlled text (system prompt, messages,
// session header) through everything that reads it before routing: the
// classifier, the session id, the cache keys, the handover split and the
// transcript. None may panic; ids stay bounded and keys deterministic.
func FuzzSessionAndKeys(f *testing.F) {
	f.Add("You are an agent for Claude Code", "fix <system-reminder>x", "sess", 1)
	f.Add("", "<system-reminder></system-reminder>17 x 23", "\x00\xff", 0)
	f.Add("summarize the conversation", "generate a title", "", 4)
	f.Fuzz(func(t *testing.T, system, last, session string, maxTokens int) {
		req := &llm.Request{MaxTokens: maxTokens, System: []llm.Part{text(system)}, Messages: []llm.Message{
			user(text(system)), assistant(call("c", "Bash", last)), user(result("c", last)), user(text(last))}}
		routing.ClassifyTurn(req)
		h := http.Header{}
		h.Set(routing.HeaderHeddleSession, session)
		id, _ := routing.SessionOf(h, req)
		if len(id) > routing.MaxSessionIDBytes || !utf8.ValidString(id) {
			t.Fatalf("session id %q", id)
		}
		scope := routing.CacheScope{OrgID: "o", KeyID: "k", Format: llm.FormatAnthropic}
		k1, txt, err := routing.CacheKeysOf(scope, req, "fp", 0)
		if err != nil {
			t.Fatal(err)
		}
		k2, _, _ := routing.CacheKeysOf(scope, req, "fp", 0)
		if k1.Exact != k2.Exact || k1.Partition != k2.Partition || k1.Numbers != k2.Numbers {
			t.Fatal("cache keys are not deterministic")
		}
		if len(txt) > routing.DefaultCacheMaxTextBytes {
			t.Fatalf("semantic text of %d bytes", len(txt))
		}
		routing.HandoverSplitOf(req, routing.HandoverConfig{})
		if tr := routing.Transcript(req.Messages); len(tr) > routing.MaxTranscriptBytes {
			t.Fatalf("transcript of %d bytes", len(tr))
		}
	})
}

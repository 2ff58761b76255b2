package routing_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

func TestSummaryRequest(t *testing.T) {
	older := longSession().Messages[:10]
	older = append(older, user(llm.Part{Type: llm.PartImage, URL: "https://x/y.png"}),
		assistant(llm.Part{Type: llm.PartThinking, Text: "secret chain of thought"}),
		user(llm.Part{Type: llm.PartToolResult, ID: "t5", IsError: true, Result: []llm.Part{text("exit 1")}}))
	r := routing.SummaryRequest("haiku", older, 0)
	if r.Model != "haiku" || r.MaxTokens != routing.DefaultSummaryMaxTokens || r.Temperature == nil || *r.Temperature != 0 ||
		len(r.Tools) != 0 || len(r.System) != 1 || len(r.Messages) != 1 || r.Messages[0].Role != llm.RoleUser {
		t.Fatalf("SummaryRequest = %+v", r)
	}
	if !strings.Contains(r.System[0].Text, "handover notes") {
		t.Fatalf("system = %q", r.System[0].Text)
	}
	tr := r.Messages[0].Content[0].Text
	for _, want := range []string{
		"<transcript>\n", "\n### user\nrefactor the parser into a package\n",
		"[tool call Bash id=t1] {\"cmd\":\"ls parser\"}\n", "[tool result id=t1]\nlexer.go parser.go\n",
		"### assistant\nRenamed.\n", "[image]\n", "[tool result id=t5 error]\nexit 1\n", "</transcript>\n",
	} {
		if !strings.Contains(tr, want) {
			t.Errorf("transcript lacks %q:\n%s", want, tr)
		}
	}
	if strings.Contains(tr, "secret chain of thought") {
		t.Error("transcript carries reasoning text")
	}
	if got := routing.SummaryRequest("m", older, 300).MaxTokens; got != 300 {
		t.Errorf("MaxTokens = %d, want 300", got)
	}
}

func TestTranscriptBounded(t *testing.T) {
	var msgs []llm.Message
	msgs = append(msgs, user(text("THE ORIGINAL TASK")))
	for range 100 {
		msgs = append(msgs, assistant(text(strings.Repeat("a", 4000))), user(text(strings.Repeat("b", 4000))))
	}
	msgs = append(msgs, user(text("THE LATEST WORDS")))
	msgs = append(msgs, user(text(strings.Repeat("é", 10000)))) // one part over 8 KiB
	tr := routing.Transcript(msgs)
	if !utf8.ValidString(tr) {
		t.Fatal("bounded transcript is not valid UTF-8")
	}
	if len(tr) > routing.MaxTranscriptBytes {
		t.Fatalf("transcript is %d bytes, over %d", len(tr), routing.MaxTranscriptBytes)
	}
	for _, want := range []string{"THE ORIGINAL TASK", "THE LATEST WORDS", "[... middle of the transcript omitted ...]"} {
		if !strings.Contains(tr, want) {
			t.Errorf("bounded transcript lacks %q", want)
		}
	}
	if strings.Contains(tr, strings.Repeat("é", 4097)) {
		t.Error("a part over 8 KiB was not cut")
	}
}

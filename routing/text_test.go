package routing

import (
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

func userText(s ...string) llm.Message {
	m := llm.Message{Role: llm.RoleUser}
	for _, t := range s {
		m.Content = append(m.Content, llm.Part{Type: llm.PartText, Text: t})
	}
	return m
}

func TestEmbeddingText(t *testing.T) {
	toolTurn := llm.Message{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartToolResult, ID: "t1", Result: []llm.Part{{Type: llm.PartText, Text: "file contents"}}}}}
	for _, tc := range []struct {
		name string
		req  *llm.Request
		max  int
		want string
	}{
		{"nil", nil, 0, ""},
		{"last user message", &llm.Request{Messages: []llm.Message{userText("first"), {Role: llm.RoleAssistant, Content: []llm.Part{{Type: llm.PartText, Text: "ok"}}}, userText("second")}}, 0, "second"},
		{"tool result turn uses the instruction", &llm.Request{Messages: []llm.Message{userText("fix the bug"), {Role: llm.RoleAssistant}, toolTurn}}, 0, "fix the bug"},
		{"system reminders stripped", &llm.Request{Messages: []llm.Message{userText("<system-reminder>todo list is empty</system-reminder>", "refactor parser.go <system-reminder>x</system-reminder>now")}}, 0, "refactor parser.go now"},
		{"only reminders fall back to earlier text", &llm.Request{Messages: []llm.Message{userText("write tests"), userText("<system-reminder>ctx</system-reminder>")}}, 0, "write tests"},
		{"unclosed reminder", &llm.Request{Messages: []llm.Message{userText("keep <system-reminder>never closed")}}, 0, "keep"},
		{"parts joined", &llm.Request{Messages: []llm.Message{userText("a", "b")}}, 0, "a\nb"},
		{"last bytes", &llm.Request{Messages: []llm.Message{userText("0123456789")}}, 4, "6789"},
		{"rune boundary", &llm.Request{Messages: []llm.Message{userText("aé日本")}}, 8, "é日本"},
		{"rune boundary cut", &llm.Request{Messages: []llm.Message{userText("aé日本")}}, 7, "日本"},
		{"system text ignored", &llm.Request{System: []llm.Part{{Type: llm.PartText, Text: "you are"}}, Messages: []llm.Message{toolTurn}}, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := EmbeddingText(tc.req, tc.max); got != tc.want {
				t.Fatalf("EmbeddingText = %q, want %q", got, tc.want)
			}
		})
	}
	long := strings.Repeat("x", 3000)
	if got := EmbeddingText(&llm.Request{Messages: []llm.Message{userText(long)}}, 0); len(got) != DefaultMaxEmbedBytes {
		t.Fatalf("default limit: %d bytes", len(got))
	}
}

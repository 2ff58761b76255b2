package routing_test

import (
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

func text(s string) llm.Part { return llm.Part{Type: llm.PartText, Text: s} }

func user(parts ...llm.Part) llm.Message { return llm.Message{Role: llm.RoleUser, Content: parts} }

func assistant(parts ...llm.Part) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: parts}
}

func call(id, name, args string) llm.Part {
	return llm.Part{Type: llm.PartToolCall, ID: id, Name: name, Arguments: args}
}

func result(id, out string) llm.Part {
	return llm.Part{Type: llm.PartToolResult, ID: id, Result: []llm.Part{text(out)}}
}

var bashTool = []llm.Tool{{Name: "Bash", Description: "run a command", Parameters: []byte(`{"type":"object"}`)}}

const (
	ccMain     = "You are Claude Code, Anthropic's official CLI for Claude.\nYou are an interactive CLI tool that helps users with software engineering tasks."
	ccSubAgent = "You are Claude Code, Anthropic's official CLI for Claude.\nYou are an agent for Claude Code, Anthropic's official CLI for Claude. Given the user's message, you should use the tools available to complete the task."
)

func TestClassifyTurn(t *testing.T) {
	sys := func(s string) []llm.Part { return []llm.Part{text(s)} }
	tests := []struct {
		name string
		req  *llm.Request
		want routing.TurnType
	}{
		{"nil request", nil, routing.TurnMain},
		{"no messages", &llm.Request{}, routing.TurnMain},
		{"main loop", &llm.Request{System: sys(ccMain), Tools: bashTool, Messages: []llm.Message{
			user(text("<system-reminder>context</system-reminder>"), text("fix the failing test in parser.go"))}}, routing.TurnMain},
		{"main after tool loop, user typed again", &llm.Request{System: sys(ccMain), Tools: bashTool, Messages: []llm.Message{
			user(text("list files")), assistant(call("t1", "Bash", `{"cmd":"ls"}`)),
			user(result("t1", "a.go"), text("now open a.go"))}}, routing.TurnMain},
		{"tool result, anthropic shape", &llm.Request{System: sys(ccMain), Tools: bashTool, Messages: []llm.Message{
			user(text("list files")), assistant(call("t1", "Bash", `{"cmd":"ls"}`)),
			user(result("t1", "a.go"), text("<system-reminder>todo list empty</system-reminder>"))}}, routing.TurnToolResult},
		{"tool result, openai tool role", &llm.Request{Tools: bashTool, Messages: []llm.Message{
			user(text("list files")), assistant(call("t1", "Bash", `{}`)),
			{Role: llm.RoleTool, Content: []llm.Part{result("t1", "a.go")}}}}, routing.TurnToolResult},
		{"sub-agent first turn", &llm.Request{System: sys(ccSubAgent), Tools: bashTool, Messages: []llm.Message{
			user(text("Find every caller of ParseConfig and report file:line"))}}, routing.TurnSubAgent},
		{"sub-agent tool result stays sub-agent", &llm.Request{System: sys(ccSubAgent), Tools: bashTool, Messages: []llm.Message{
			user(text("Find callers")), assistant(call("t1", "Bash", `{}`)), user(result("t1", "x.go:3"))}}, routing.TurnSubAgent},
		{"sub-agent named in developer message", &llm.Request{Tools: bashTool, Messages: []llm.Message{
			{Role: llm.RoleDeveloper, Content: []llm.Part{text("You are a sub-agent spawned to review one file.")}},
			user(text("review a.go"))}}, routing.TurnSubAgent},
		{"compaction in last user message, tools kept", &llm.Request{System: sys(ccMain), Tools: bashTool, Messages: []llm.Message{
			user(text("hi")), assistant(text("hello")),
			user(text("Your task is to create a detailed summary of the conversation so far, paying close attention to the user's requests."))}},
			routing.TurnCompaction},
		{"compaction system prompt without tools", &llm.Request{
			System:   sys("You are a helpful AI assistant tasked with summarizing conversations."),
			Messages: []llm.Message{user(text("...history..."))}}, routing.TurnCompaction},
		{"codex checkpoint compaction", &llm.Request{
			System:   sys("You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary."),
			Messages: []llm.Message{user(text("history"))}}, routing.TurnCompaction},
		{"summary phrase in system with tools is main", &llm.Request{
			System: sys(ccMain + "\nWhen the context fills up we summarize the conversation automatically."), Tools: bashTool,
			Messages: []llm.Message{user(text("rename foo to bar"))}}, routing.TurnMain},
		{"probe max_tokens 1", &llm.Request{MaxTokens: 1, Messages: []llm.Message{user(text("quota"))}}, routing.TurnProbe},
		{"probe wins over sub-agent", &llm.Request{MaxTokens: 4, System: sys(ccSubAgent), Messages: []llm.Message{user(text("x"))}}, routing.TurnProbe},
		{"max_tokens 5 is not a probe", &llm.Request{MaxTokens: 5, Messages: []llm.Message{user(text("quota"))}}, routing.TurnMain},
		{"title in system", &llm.Request{MaxTokens: 512,
			System:   sys("Generate a concise, sentence-case title (3-7 words) that captures the main topic of the conversation."),
			Messages: []llm.Message{user(text("help me speed up the CSV importer"))}}, routing.TurnTitle},
		{"title in user message", &llm.Request{Messages: []llm.Message{
			user(text("Please write a short title for this chat: debugging the auth middleware"))}}, routing.TurnTitle},
		{"title for this conversation", &llm.Request{Messages: []llm.Message{
			user(text("What would be a good title for this conversation?"))}}, routing.TurnTitle},
		{"title request with tools is main", &llm.Request{Tools: bashTool, Messages: []llm.Message{
			user(text("generate a title for the README and commit it"))}}, routing.TurnMain},
		{"title words in a long history are main", &llm.Request{Messages: []llm.Message{
			user(text("a")), assistant(text("b")), user(text("c")), assistant(text("d")),
			user(text("generate a title for my blog post"))}}, routing.TurnMain},
		{"title mentioned without a verb is main", &llm.Request{Messages: []llm.Message{
			user(text("The title of the book is Dune. Who wrote it?"))}}, routing.TurnMain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := routing.ClassifyTurn(tt.req); got != tt.want {
				t.Fatalf("ClassifyTurn = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTurnTypePinned(t *testing.T) {
	want := map[routing.TurnType]bool{
		routing.TurnMain: true, routing.TurnToolResult: true, routing.TurnSubAgent: true,
		routing.TurnCompaction: true, routing.TurnProbe: false, routing.TurnTitle: false, "unknown": false,
	}
	for tt, w := range want {
		if got := tt.Pinned(); got != w {
			t.Errorf("%q.Pinned() = %v, want %v", tt, got, w)
		}
	}
}

func TestPinRole(t *testing.T) {
	sub := func(task string) *llm.Request {
		return &llm.Request{System: []llm.Part{text(ccSubAgent)}, Messages: []llm.Message{user(text(task))}}
	}
	main := &llm.Request{System: []llm.Part{text(ccMain)}, Messages: []llm.Message{user(text("hi"))}}
	for _, tc := range []struct {
		t    routing.TurnType
		want string
	}{{routing.TurnMain, "main"}, {routing.TurnToolResult, "main"}, {routing.TurnCompaction, "main"},
		{routing.TurnProbe, "probe"}, {routing.TurnTitle, "title"}} {
		if got := routing.PinRole(main, tc.t); got != tc.want {
			t.Errorf("PinRole(%s) = %q, want %q", tc.t, got, tc.want)
		}
	}
	a1 := routing.PinRole(sub("find callers of ParseConfig"), routing.TurnSubAgent)
	a2 := routing.PinRole(sub("find callers of ParseConfig"), routing.TurnSubAgent)
	b := routing.PinRole(sub("write tests for lexer.go"), routing.TurnSubAgent)
	if !strings.HasPrefix(a1, "sub_agent:") || len(a1) != len("sub_agent:")+16 {
		t.Fatalf("sub-agent role = %q, want sub_agent: and 16 hex digits", a1)
	}
	if a1 != a2 {
		t.Fatalf("the same sub-agent task gave roles %q and %q", a1, a2)
	}
	if a1 == b {
		t.Fatalf("two sub-agent tasks share role %q", a1)
	}
	// A later turn of the same sub-agent (history grown) keeps its role.
	later := sub("find callers of ParseConfig")
	later.Messages = append(later.Messages, assistant(call("t1", "Grep", `{}`)), user(result("t1", "a.go:1")))
	if got := routing.PinRole(later, routing.TurnSubAgent); got != a1 {
		t.Fatalf("later sub-agent turn role = %q, want %q", got, a1)
	}
}

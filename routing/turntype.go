package routing

import (
	"encoding/hex"
	"regexp"
	"strings"

	"github.com/heddle-gw/heddle/llm"
)

// TurnType is what kind of turn a request is, classified from its shape.
type TurnType string

// Turn types, a closed vocabulary (recorded in analytics).
const (
	// TurnMain is a turn of an agent's main loop: the user wrote something.
	TurnMain TurnType = "main"
	// TurnToolResult is a main-loop turn whose last user message only returns
	// tool results: the agent is inside a tool loop.
	TurnToolResult TurnType = "tool_result"
	// TurnSubAgent is a turn of a sub-agent (for example a Claude Code Task
	// tool agent), its tool-result turns included.
	TurnSubAgent TurnType = "sub_agent"
	// TurnCompaction is a request to summarise the conversation so far.
	TurnCompaction TurnType = "compaction"
	// TurnProbe is a quota or liveness check (a tiny max_tokens).
	TurnProbe TurnType = "probe"
	// TurnTitle asks for a short title of the conversation.
	TurnTitle TurnType = "title"
)

// ProbeMaxTokens is the largest max_tokens a probe asks for: nobody does real
// work in 4 tokens, and Claude Code's quota check asks for 1.
const ProbeMaxTokens = 4

// compactionPhrases mark a request to summarise the conversation (Claude
// Code's /compact and auto-compaction, Codex's context checkpoint, and the
// generic wording other agents use). They are matched in lower case.
var compactionPhrases = []string{
	"summarize the conversation", "summarise the conversation",
	"summary of the conversation", "summarizing conversations", "summarising conversations",
	"summarize this conversation", "summarise this conversation",
	"context checkpoint compaction", "compact the conversation", "compress the conversation",
}

// subAgentPhrases mark a sub-agent's system prompt: Claude Code's Task tool
// agents ("You are an agent for Claude Code, ..." and the built-in
// specialists) and agents that name themselves sub-agents.
var subAgentPhrases = []string{
	"you are an agent for claude code",
	"you are a sub-agent", "you are a subagent", "as a sub-agent", "as a subagent",
	"file search specialist for claude code",
}

// titleRe matches an instruction to produce a title: a verb of making within
// a few words of "title" ("generate a concise, sentence-case title",
// "write a 3-7 word title", "extract a title"), or "title for this
// conversation".
var titleRe = regexp.MustCompile(`\b(generate|write|create|suggest|extract|propose|give|produce|come up with)\b[^.\n]{0,48}\btitle\b|\btitle (for|of) (this|the) (conversation|chat|session)\b`)

// titleMaxMessages bounds a title request's length: it carries the first
// message or two of a conversation, not a history.
const titleMaxMessages = 4

// ClassifyTurn returns the turn type of req. The rules, first match wins:
//
//  1. probe: 1 <= max_tokens <= ProbeMaxTokens.
//  2. title: no tools, at most titleMaxMessages messages, and the system
//     prompt or the last user message asks to generate/write/create/... a
//     title (titleRe).
//  3. compaction: the last user message asks to summarise the conversation
//     (compactionPhrases), or the system prompt does and the request offers no
//     tools (an agent's main system prompt may mention compaction while still
//     offering its tools).
//  4. sub-agent: the system prompt is a sub-agent's (subAgentPhrases). A
//     sub-agent's tool-result turns are sub-agent turns too, so they share the
//     sub-agent's pin.
//  5. tool result: the last message is a tool message, or a user message whose
//     content is only tool results (and <system-reminder> text).
//  6. main: everything else, a nil request and one without messages included.
func ClassifyTurn(req *llm.Request) TurnType {
	if req == nil {
		return TurnMain
	}
	if req.MaxTokens >= 1 && req.MaxTokens <= ProbeMaxTokens {
		return TurnProbe
	}
	system := strings.ToLower(systemText(req))
	last := strings.ToLower(lastUserText(req))
	if len(req.Tools) == 0 && len(req.Messages) <= titleMaxMessages &&
		(titleRe.MatchString(system) || titleRe.MatchString(last)) {
		return TurnTitle
	}
	if containsAny(last, compactionPhrases) || (len(req.Tools) == 0 && containsAny(system, compactionPhrases)) {
		return TurnCompaction
	}
	if containsAny(system, subAgentPhrases) {
		return TurnSubAgent
	}
	if lastIsToolResult(req) {
		return TurnToolResult
	}
	return TurnMain
}

// Pinned reports whether turns of type t read and write session pins. Main,
// tool-result, sub-agent and compaction turns are part of a session's work;
// probes and titles are auxiliary one-shots routed on their own.
func (t TurnType) Pinned() bool {
	switch t {
	case TurnMain, TurnToolResult, TurnSubAgent, TurnCompaction:
		return true
	}
	return false
}

// PinRole returns the role part of req's pin key for a turn of type t: "main"
// for main-loop, tool-result and compaction turns (a compaction summarises
// the main conversation, whose prompt cache lives on the main pin's model);
// "sub_agent:" plus a digest of the sub-agent's system prompt and first user
// message for sub-agent turns, so parallel sub-agents of one session each
// keep their own pin; the type itself for probes and titles.
func PinRole(req *llm.Request, t TurnType) string {
	switch t {
	case TurnMain, TurnToolResult, TurnCompaction:
		return "main"
	case TurnSubAgent:
		sum, _ := sessionDigest(req)
		return "sub_agent:" + hex.EncodeToString(sum[:8])
	}
	return string(t)
}

// systemText joins the text of req's system parts and of system or developer
// messages.
func systemText(req *llm.Request) string {
	var b strings.Builder
	for _, p := range req.System {
		if p.Type == llm.PartText {
			b.WriteString(p.Text)
			b.WriteByte('\n')
		}
	}
	for _, m := range req.Messages {
		if m.Role == llm.RoleSystem || m.Role == llm.RoleDeveloper {
			b.WriteString(textOf(m.Content))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// lastUserText is the text of the last user message, <system-reminder>
// blocks removed.
func lastUserText(req *llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			return stripReminders(textOf(req.Messages[i].Content))
		}
	}
	return ""
}

// textOf joins the text parts of content with newlines.
func textOf(content []llm.Part) string {
	var b strings.Builder
	for _, p := range content {
		if p.Type != llm.PartText {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// lastIsToolResult reports whether the last message only returns tool
// results.
func lastIsToolResult(req *llm.Request) bool {
	if len(req.Messages) == 0 {
		return false
	}
	m := req.Messages[len(req.Messages)-1]
	if m.Role == llm.RoleTool {
		return true
	}
	return m.Role == llm.RoleUser && onlyToolResults(m.Content)
}

// onlyToolResults reports whether content holds at least one tool result and
// nothing a user authored (text other than <system-reminder> blocks, images,
// documents).
func onlyToolResults(content []llm.Part) bool {
	results := 0
	for _, p := range content {
		switch p.Type {
		case llm.PartToolResult:
			results++
		case llm.PartText:
			if strings.TrimSpace(stripReminders(p.Text)) != "" {
				return false
			}
		default:
			return false
		}
	}
	return results > 0
}

func containsAny(s string, phrases []string) bool {
	for _, p := range phrases {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

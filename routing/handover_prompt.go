package routing

import (
	"fmt"
	"strings"

	"github.com/heddle-gw/heddle/llm"
)

// Summary request bounds.
const (
	// DefaultSummaryMaxTokens bounds the summary a handover asks for.
	DefaultSummaryMaxTokens = 1024
	// MaxTranscriptBytes bounds the transcript sent to the summarizer: its
	// head (the task as first stated) and its tail are kept.
	MaxTranscriptBytes = 256 << 10
	// maxPartBytes bounds one rendered text, argument or result.
	maxPartBytes   = 8 << 10
	transcriptHead = 16 << 10
)

const summaryInstruction = `You write handover notes. Another assistant will continue the conversation ` +
	`below with only your notes and the most recent messages, which it will see itself. From the transcript, ` +
	`record: what the user wants and every constraint they set; decisions taken and why; names that matter ` +
	`(files, functions, commands, identifiers, URLs) and what was learned about them; tool results that are ` +
	`still relevant; errors met and how they were resolved; what remains to be done. Be factual and concise, ` +
	`quote exact values, invent nothing, and write in the conversation's language. Output only the notes.`

// SummaryRequest builds the request a Summarizer sends to a cheap model: the
// instruction as system prompt and one user message holding a plain-text
// transcript of older (tool calls and results rendered as text, so the
// request needs no tools and is valid in every wire format; reasoning parts
// omitted; each part cut to 8 KiB and the whole to MaxTranscriptBytes),
// temperature 0 and at most maxTokens of output (DefaultSummaryMaxTokens when
// <= 0).
func SummaryRequest(model string, older []llm.Message, maxTokens int) *llm.Request {
	if maxTokens <= 0 {
		maxTokens = DefaultSummaryMaxTokens
	}
	zero := 0.0
	return &llm.Request{
		Model:       model,
		System:      []llm.Part{{Type: llm.PartText, Text: summaryInstruction}},
		Messages:    []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: Transcript(older)}}}},
		MaxTokens:   maxTokens,
		Temperature: &zero,
	}
}

// Transcript renders messages as plain text for a summarizer, at most
// MaxTranscriptBytes: when longer, its first 16 KiB and its tail are kept
// with a marker between them.
func Transcript(msgs []llm.Message) string {
	var b strings.Builder
	b.WriteString("<transcript>\n")
	for _, m := range msgs {
		fmt.Fprintf(&b, "\n### %s\n", m.Role)
		for _, p := range m.Content {
			renderPart(&b, p)
		}
	}
	b.WriteString("</transcript>\n")
	s := b.String()
	if len(s) <= MaxTranscriptBytes {
		return s
	}
	head := cutBytes(s, transcriptHead)
	rest := s[len(s)-(MaxTranscriptBytes-transcriptHead-64):]
	for len(rest) > 0 && !isRuneStart(rest[0]) {
		rest = rest[1:]
	}
	return head + "\n[... middle of the transcript omitted ...]\n" + rest
}

func renderPart(b *strings.Builder, p llm.Part) {
	switch p.Type {
	case llm.PartText:
		if t := strings.TrimSpace(stripReminders(p.Text)); t != "" {
			b.WriteString(cutBytes(t, maxPartBytes))
			b.WriteByte('\n')
		}
	case llm.PartImage:
		b.WriteString("[image]\n")
	case llm.PartDocument:
		b.WriteString("[document]\n")
	case llm.PartToolCall:
		fmt.Fprintf(b, "[tool call %s id=%s] %s\n", p.Name, p.ID, cutBytes(p.Arguments, maxPartBytes))
	case llm.PartToolResult:
		status := ""
		if p.IsError {
			status = " error"
		}
		var r strings.Builder
		for _, q := range p.Result {
			renderPart(&r, q)
		}
		rs := cutBytes(r.String(), maxPartBytes)
		fmt.Fprintf(b, "[tool result id=%s%s]\n%s", p.ID, status, rs)
		if !strings.HasSuffix(rs, "\n") {
			b.WriteByte('\n')
		}
	}
}

func isRuneStart(c byte) bool { return c&0xC0 != 0x80 }

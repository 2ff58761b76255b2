package conformance

import (
	"fmt"
	"strings"

	"github.com/heddle-gw/heddle/llm"
)

// The semantic view of a canonical request or response: what a caller means,
// independent of how a format splits it into messages. Tool results form the
// "tool" side whatever message carried them; consecutive parts of one side
// are one turn.

// turn is one side's run of parts, each rendered as a line.
type turn struct {
	Role  string
	Parts []string
}

// conversation is the semantic view of a request.
type conversation struct {
	Model     string
	System    string
	MaxTokens int
	Tools     []string
	Turns     []turn
}

// ids selects how tool-call ids are rendered.
type ids int

const (
	// rawIDs renders each id as it is.
	rawIDs ids = iota
	// pairedIDs renders ids as #1, #2... in order of first appearance, so
	// only the pairing of calls and results is compared.
	pairedIDs
)

// labeler renders ids under a mode.
type labeler struct {
	mode   ids
	labels map[string]string
}

func (l *labeler) label(id string) string {
	if l.mode == rawIDs {
		return id
	}
	if l.labels == nil {
		l.labels = map[string]string{}
	}
	if s, ok := l.labels[id]; ok {
		return s
	}
	s := fmt.Sprintf("#%d", len(l.labels)+1)
	l.labels[id] = s
	return s
}

// conversationOf is the semantic view of r.
func conversationOf(r *llm.Request, mode ids) conversation {
	c := conversation{Model: r.Model, MaxTokens: r.MaxTokens}
	var sys []string
	for _, p := range r.System {
		if p.Type == llm.PartText && p.Text != "" {
			sys = append(sys, p.Text)
		}
	}
	c.System = strings.Join(sys, "\n")
	for _, t := range r.Tools {
		c.Tools = append(c.Tools, fmt.Sprintf("%s: %s %s", t.Name, t.Description, normJSON(string(t.Parameters))))
	}
	l := &labeler{mode: mode}
	for _, m := range r.Messages {
		for _, p := range m.Content {
			role := string(m.Role)
			if p.Type == llm.PartToolResult {
				role = string(llm.RoleTool)
			}
			line := l.render(p)
			if n := len(c.Turns); n > 0 && c.Turns[n-1].Role == role {
				c.Turns[n-1].Parts = append(c.Turns[n-1].Parts, line)
				continue
			}
			c.Turns = append(c.Turns, turn{Role: role, Parts: []string{line}})
		}
	}
	return c
}

// render is the semantic line of one part.
func (l *labeler) render(p llm.Part) string {
	switch p.Type {
	case llm.PartText:
		return "text: " + p.Text
	case llm.PartImage, llm.PartDocument:
		if p.URL != "" {
			return fmt.Sprintf("%s: url %s", p.Type, p.URL)
		}
		return fmt.Sprintf("%s: %s %s", p.Type, p.MediaType, p.Data)
	case llm.PartToolCall:
		return fmt.Sprintf("call %s %s %s", l.label(p.ID), p.Name, normJSON(p.Arguments))
	case llm.PartToolResult:
		var texts []string
		for _, r := range p.Result {
			texts = append(texts, l.render(r))
		}
		return fmt.Sprintf("result %s error=%v [%s]", l.label(p.ID), p.IsError, strings.Join(texts, "; "))
	case llm.PartThinking:
		return "thinking: " + p.Text
	}
	return string(p.Type)
}

// answer is the semantic view of a response or of a decoded stream.
type answer struct {
	Model   string
	Content []string
	Stop    llm.StopReason
	Usage   llm.Usage
}

// answerOf is the semantic view of r.
func answerOf(r *llm.Response) answer {
	a := answer{Model: r.Model, Stop: r.StopReason, Usage: r.Usage}
	l := &labeler{mode: rawIDs}
	for _, p := range r.Content {
		a.Content = append(a.Content, l.render(p))
	}
	return a
}

// projectUsage is the usage a caller of format f can see of u: formats
// without a cache-write count report those tokens as plain input (the total
// prompt is kept), and Anthropic has no reasoning count.
func projectUsage(u llm.Usage, f llm.Format) llm.Usage {
	if f != llm.FormatAnthropic {
		u.Input += u.CacheWrite
		u.CacheWrite = 0
	} else {
		u.Reasoning = 0
	}
	return u
}

package routing

import (
	"strings"
	"unicode/utf8"

	"github.com/heddle-gw/heddle/llm"
)

// DefaultMaxEmbedBytes is how much user text is embedded when no limit is set.
const DefaultMaxEmbedBytes = 1024

const (
	reminderOpen  = "<system-reminder>"
	reminderClose = "</system-reminder>"
)

// EmbeddingText returns the user-authored text the router embeds for req: the
// text parts of the latest user message that has any (tool results, images and
// <system-reminder> blocks are not user-authored and are skipped, so a
// tool-result turn is routed by the instruction that started it), cut to its
// last maxBytes bytes on a rune boundary (DefaultMaxEmbedBytes when
// maxBytes <= 0). It returns "" when the request has no user text.
func EmbeddingText(req *llm.Request, maxBytes int) string {
	if req == nil {
		return ""
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxEmbedBytes
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != llm.RoleUser {
			continue
		}
		var b strings.Builder
		for _, p := range m.Content {
			if p.Type != llm.PartText {
				continue
			}
			t := strings.TrimSpace(stripReminders(p.Text))
			if t == "" {
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t)
		}
		if b.Len() > 0 {
			return tail(b.String(), maxBytes)
		}
	}
	return ""
}

// stripReminders removes <system-reminder>...</system-reminder> blocks; an
// unclosed block runs to the end of the text.
func stripReminders(s string) string {
	if !strings.Contains(s, reminderOpen) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, reminderOpen)
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		rest := s[i+len(reminderOpen):]
		j := strings.Index(rest, reminderClose)
		if j < 0 {
			break
		}
		s = rest[j+len(reminderClose):]
	}
	return b.String()
}

// tail returns the last n bytes of s, moved forward to a rune boundary.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}

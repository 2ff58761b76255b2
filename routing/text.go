package routing

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/heddle-gw/heddle/llm"
)

// DefaultMaxEmbedBytes is how much user text is embedded when no limit is set.
const DefaultMaxEmbedBytes = 1024

// MaxQueryBytes is how much of the latest user text a caller hands the router
// (EmbeddingText's bound for Query.Text): enough to find a bundle's preamble
// at its start, before the router keeps the last MaxEmbedBytes of the rest.
const MaxQueryBytes = 64 << 10

// Preamble limits: a bundle holds at most MaxPreambles, each at most
// MaxPreambleBytes long (a longer template is not found in a MaxQueryBytes
// text anyway).
const (
	MaxPreambles     = 16
	MaxPreambleBytes = 32 << 10
)

func checkPreambles(pre []string) error {
	if len(pre) > MaxPreambles {
		return fmt.Errorf("%d preambles, at most %d", len(pre), MaxPreambles)
	}
	for i, p := range pre {
		if strings.TrimSpace(p) == "" || len(p) > MaxPreambleBytes || (i > 0 && len(p) > len(pre[i-1])) {
			return fmt.Errorf("preamble %d is blank, longer than %d bytes or longer than the one before it", i, MaxPreambleBytes)
		}
	}
	return nil
}

// QueryText is the text the router embeds for user text (Query.Text): the
// text after the longest of the bundle's preambles it starts with (when
// something is left after it), cut to its last maxBytes bytes on a rune
// boundary (DefaultMaxEmbedBytes when maxBytes <= 0). Training embeds its
// prompts through the same function.
func (b *Bundle) QueryText(text string, maxBytes int) string {
	return QueryText(b.Preambles, text, maxBytes)
}

// QueryText is Bundle.QueryText for the preambles pre (longest first).
func QueryText(pre []string, text string, maxBytes int) string {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxEmbedBytes
	}
	for _, p := range pre {
		if rest, ok := strings.CutPrefix(text, p); ok {
			if rest = strings.TrimSpace(rest); rest != "" {
				text = rest
				break
			}
		}
	}
	return tail(text, maxBytes)
}

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

package responses

import (
	"fmt"
	"strings"
)

// idGen derives the ids of a response and its output items from the
// canonical response id, so the same response always gets the same ids.
type idGen struct{ base string }

// newIDs returns the id generator for a canonical response id.
func newIDs(id string) idGen {
	base := strings.TrimPrefix(id, "resp_")
	base = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return -1
	}, base)
	if base == "" {
		base = "heddle"
	}
	return idGen{base: base}
}

func (g idGen) response() string { return "resp_" + g.base }

// item names output item n with an OpenAI-style prefix (msg, fc, rs).
func (g idGen) item(prefix string, n int) string {
	return fmt.Sprintf("%s_%s_%d", prefix, g.base, n)
}

// callID keeps a tool call's id, or makes one for output item n.
func callID(id string, g idGen, n int) string {
	if id != "" {
		return id
	}
	return g.item("call", n)
}

// reasoningID keeps an OpenAI reasoning id, or makes one for output item n.
func reasoningID(id string, g idGen, n int) string {
	if strings.HasPrefix(id, "rs_") {
		return id
	}
	return g.item("rs", n)
}

package gemini

import (
	"fmt"
	"strings"
)

// callIDs gives Gemini function calls canonical ids and pairs each
// functionResponse with a call: by its id when the caller sent one, else with
// the oldest unanswered call of the same name.
type callIDs struct {
	prefix  string
	n       int
	pending map[string][]string // function name -> ids of unanswered calls
}

// newCallIDs returns ids of the form prefix1, prefix2, ...
func newCallIDs(prefix string) *callIDs {
	return &callIDs{prefix: prefix, pending: map[string][]string{}}
}

// responseCallIDs returns the id generator of a response: its ids embed the
// responseId so that calls of different turns never share an id.
func responseCallIDs(responseID string) *callIDs {
	base := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-':
			return r
		}
		return -1
	}, responseID)
	if len(base) > 24 {
		base = base[:24]
	}
	if base == "" {
		return newCallIDs("call_")
	}
	return newCallIDs("call_" + base + "_")
}

// call returns the id of a call (its own, or a new one) and records it as
// unanswered.
func (c *callIDs) call(name, id string) string {
	if id == "" {
		c.n++
		id = fmt.Sprintf("%s%d", c.prefix, c.n)
	}
	c.pending[name] = append(c.pending[name], id)
	return id
}

// response returns the id of the call a functionResponse answers.
func (c *callIDs) response(name, id string) string {
	q := c.pending[name]
	if id != "" {
		for i, p := range q {
			if p == id {
				c.pending[name] = append(q[:i:i], q[i+1:]...)
				break
			}
		}
		return id
	}
	if len(q) > 0 {
		c.pending[name] = q[1:]
		return q[0]
	}
	c.n++
	return fmt.Sprintf("%s%d", c.prefix, c.n)
}

package routing

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/heddle-gw/heddle/llm"
)

// Session headers, in the order SessionOf consults them.
const (
	// HeaderClaudeCodeSession is sent by Claude Code on every request.
	HeaderClaudeCodeSession = "X-Claude-Code-Session-Id"
	// HeaderSessionID is sent by Codex (and other OpenAI-style agents).
	HeaderSessionID = "Session-Id"
	// HeaderHeddleSession lets any client name its session explicitly.
	HeaderHeddleSession = "X-Heddle-Session"
)

// Session sources reported by SessionOf besides the header names.
const (
	// SessionDerived means the id is a digest of the system prompt and the
	// first user message.
	SessionDerived = "derived"
	// SessionNone means the request has neither a session header nor a system
	// prompt or user message to derive one from; such a request is not pinned.
	SessionNone = "none"
)

// MaxSessionIDBytes bounds a session id taken from a header; a longer value,
// or one with bytes outside printable ASCII, is replaced by its digest.
const MaxSessionIDBytes = 200

var sessionHeaders = []string{HeaderClaudeCodeSession, HeaderSessionID, HeaderHeddleSession}

// SessionOf returns the session id of a request and where it came from: the
// first non-blank header of X-Claude-Code-Session-Id, Session-Id and
// X-Heddle-Session (source: the header name in lower case), else "d-" and the
// hex of the first 16 bytes of a SHA-256 over the system prompt and the first
// user message (source SessionDerived; every turn of a conversation replays
// both, so they name it), else "" and SessionNone. A nil header or request is
// allowed. The id is not secret but is caller-chosen: it is only ever used
// inside a PinKey, which also holds the organisation, key and end user, so
// two callers choosing the same id never share a pin.
func SessionOf(h http.Header, req *llm.Request) (id, source string) {
	for _, name := range sessionHeaders {
		v := strings.TrimSpace(h.Get(name))
		if v == "" {
			continue
		}
		if len(v) > MaxSessionIDBytes || !printableASCII(v) {
			sum := sha256.Sum256([]byte(v))
			v = "h-" + hex.EncodeToString(sum[:16])
		}
		return v, strings.ToLower(name)
	}
	sum, ok := sessionDigest(req)
	if !ok {
		return "", SessionNone
	}
	return "d-" + hex.EncodeToString(sum[:16]), SessionDerived
}

// sessionDigest is a SHA-256 over the canonical encoding of req's system
// prompt (system parts and system/developer messages, text only) and its
// first user message (all parts). ok is false when req has neither.
func sessionDigest(req *llm.Request) (sum [32]byte, ok bool) {
	if req == nil {
		return sum, false
	}
	c := newCanon("heddle-session/v1")
	system := systemText(req)
	c.str(system)
	found := false
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			c.message(m)
			found = true
			break
		}
	}
	if !found && strings.TrimSpace(system) == "" {
		return sum, false
	}
	return c.sum(), true
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

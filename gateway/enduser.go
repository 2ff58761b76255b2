package gateway

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/heddle-gw/heddle/analytics"
)

// Caller headers that name the end user and tag the request.
const (
	HeaderUser = "X-Heddle-User"
	HeaderTags = "X-Heddle-Tags"
)

// maxUserLen bounds a recorded end-user or session id.
const maxUserLen = 128

// endUser splits what the client says about its user into the end user and
// the session. The x-heddle-user header wins; else the request's user field
// (OpenAI user, Anthropic metadata.user_id). Claude Code sends
// metadata.user_id as JSON ({"device_id", "account_uuid", "session_id"}) or
// as "user_<device>_account_<account>_session_<session>": the user is the
// account (the device when no account is named), the session the session
// part. Any other value is the user as given, with no session.
func endUser(h http.Header, field string) (user, session string) {
	if u := strings.TrimSpace(h.Get(HeaderUser)); u != "" {
		return clip(u), ""
	}
	field = strings.TrimSpace(field)
	if strings.HasPrefix(field, "{") {
		var m struct {
			Device  string `json:"device_id"`
			Account string `json:"account_uuid"`
			Session string `json:"session_id"`
		}
		if json.Unmarshal([]byte(field), &m) == nil && (m.Device != "" || m.Account != "") {
			return clip(firstOf(m.Account, m.Device)), clip(m.Session)
		}
	}
	if rest, ok := strings.CutPrefix(field, "user_"); ok {
		device, rest, _ := strings.Cut(rest, "_account_")
		account, session, _ := strings.Cut(rest, "_session_")
		if device != "" && (account != "" || session != "") {
			return clip(firstOf(account, device)), clip(session)
		}
	}
	return clip(field), ""
}

// requestTags are the tags of the x-heddle-tags header (comma-separated)
// and the key's, as analytics.JoinTags stores them.
func requestTags(h http.Header, keyTags []string) string {
	return analytics.JoinTags(keyTags, strings.Split(h.Get(HeaderTags), ","))
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func clip(s string) string {
	if len(s) > maxUserLen {
		return s[:maxUserLen]
	}
	return s
}

// requestedModel is the model a turn names without decoding it: the URL's
// (Gemini) or the body's top-level "model" field; "" when neither parses.
func requestedModel(t *Turn) string {
	if t.PathModel != "" {
		return t.PathModel
	}
	var m struct {
		Model string `json:"model"`
	}
	if json.Unmarshal(t.Body, &m) != nil {
		return ""
	}
	return clip(m.Model)
}

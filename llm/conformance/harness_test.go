package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/internal/golden"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/anthropic"
	"github.com/heddle-gw/heddle/llm/gemini"
	"github.com/heddle-gw/heddle/llm/openaichat"
	"github.com/heddle-gw/heddle/llm/responses"
)

// fixedNow is the clock of the codecs under test, so goldens are stable.
var fixedNow = time.Unix(1764403200, 0)

// newCodec returns format f's codec with counting ids and a fixed clock.
func newCodec(f llm.Format) llm.Codec {
	n := 0
	id := func(prefix string) string {
		n++
		return fmt.Sprintf("%sgen%d", prefix, n)
	}
	switch f {
	case llm.FormatAnthropic:
		return &anthropic.Codec{NewID: id}
	case llm.FormatChat:
		return &openaichat.Codec{NewID: id, Now: func() time.Time { return fixedNow }}
	case llm.FormatResponses:
		return responses.New()
	case llm.FormatGemini:
		return gemini.New()
	}
	panic("unknown format " + string(f))
}

// upstreamModel is the model a plan target of each format names.
var upstreamModel = map[llm.Format]string{
	llm.FormatAnthropic: "claude-sonnet-4-5-20250929",
	llm.FormatChat:      "gpt-4.1",
	llm.FormatResponses: "gpt-5",
	llm.FormatGemini:    "gemini-2.5-flash",
}

// fixtureModel is the model each request fixture asks for; Gemini's is in
// the URL, as the gateway passes it.
var fixtureModel = map[llm.Format]string{
	llm.FormatAnthropic: "claude-sonnet-4-5",
	llm.FormatChat:      "gpt-4.1",
	llm.FormatResponses: "gpt-5",
	llm.FormatGemini:    "gemini-2.5-flash",
}

// keepsModel reports whether a request body in f names its model.
func keepsModel(f llm.Format) bool { return f != llm.FormatGemini }

// keepsRequestIDs reports whether f's request encoding carries tool-call ids
// (Gemini pairs calls and responses by name and order instead).
func keepsRequestIDs(f llm.Format) bool { return f != llm.FormatGemini }

// pair is one ordered (inbound, upstream) pair.
type pair struct{ in, up llm.Format }

func (p pair) String() string { return string(p.in) + "__" + string(p.up) }

// pairs lists all 16 ordered pairs.
func pairs() []pair {
	var out []pair
	for _, a := range llm.Formats {
		for _, b := range llm.Formats {
			out = append(out, pair{a, b})
		}
	}
	return out
}

// readFixture reads testdata/fixtures/<kind>/<format><ext>.
func readFixture(t *testing.T, kind string, f llm.Format, ext string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fixtures", kind, string(f)+ext))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decodeRequest decodes a caller's request in f the way the gateway does:
// a Gemini body gets its model from the URL.
func decodeRequest(t *testing.T, f llm.Format, body []byte) *llm.Request {
	t.Helper()
	req, err := newCodec(f).DecodeRequest(body)
	if err != nil {
		t.Fatalf("%s: decode request: %v", f, err)
	}
	if f == llm.FormatGemini {
		req.Model = fixtureModel[f]
	}
	return req
}

// checkGolden compares got with testdata/<path>, or rewrites it under -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", path), got)
}

// indent pretty-prints a JSON body for its golden file; it changes only
// insignificant whitespace, so the golden shows the exact members and order.
func indent(t *testing.T, body []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, body, "", "  "); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, body)
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

// normJSON renders a JSON text with sorted keys and no space, so two
// renderings of the same value compare equal; invalid JSON is returned as is.
func normJSON(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return s
	}
	return string(b)
}

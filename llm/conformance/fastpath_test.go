package conformance

import (
	"bytes"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

// futureMember is an unknown top-level member, written the way no encoder
// would (spacing, a trailing zero, an escape), so only a byte-exact
// forward keeps it.
const futureMember = `"x_future_beta" : {"kept": [1, 2.50, "\u00e9"]},`

// TestSameFormatRequestFastPath checks the four same-format pairs' request
// path: SetModel changes the model value and not one other byte, unknown
// members included. Gemini names the model in the URL, so its body is
// forwarded untouched.
func TestSameFormatRequestFastPath(t *testing.T) {
	const served = "served-upstream-model-2026"
	for _, f := range llm.Formats {
		t.Run(string(f), func(t *testing.T) {
			fixture := readFixture(t, "request", f, ".json")
			body := append([]byte("{"+futureMember), bytes.TrimPrefix(bytes.TrimSpace(fixture), []byte("{"))...)
			got, err := newCodec(f).SetModel(body, served)
			if err != nil {
				t.Fatalf("SetModel: %v", err)
			}
			want := body
			if keepsModel(f) {
				old := []byte(`"` + fixtureModel[f] + `"`)
				if bytes.Count(body, old) != 1 {
					t.Fatalf("fixture must name %s exactly once", old)
				}
				want = bytes.Replace(body, old, []byte(`"`+served+`"`), 1)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("SetModel changed more than the model:\n got %s\nwant %s", got, want)
			}
			m, err := newCodec(f).ModelOf(got)
			if err != nil {
				t.Fatalf("ModelOf: %v", err)
			}
			wantModel := ""
			if keepsModel(f) {
				wantModel = served
			}
			if m != wantModel {
				t.Errorf("ModelOf = %q, want %q", m, wantModel)
			}
			if _, err := newCodec(f).DecodeRequest(got); err != nil {
				t.Errorf("forwarded body no longer decodes: %v", err)
			}
		})
	}
}

// TestSameFormatStreamFastPath checks the four same-format pairs' stream
// path: the Raw frames of the decoded events, which the gateway forwards
// when the upstream speaks the caller's format, rebuild the upstream stream
// byte for byte (pings and frames that yield no event included).
func TestSameFormatStreamFastPath(t *testing.T) {
	for _, f := range llm.Formats {
		t.Run(string(f), func(t *testing.T) {
			fixture := readFixture(t, "stream", f, ".sse")
			var forwarded bytes.Buffer
			for _, e := range readEvents(t, newCodec(f).NewStreamDecoder(bytes.NewReader(fixture))) {
				forwarded.Write(e.Raw)
			}
			if !bytes.Equal(forwarded.Bytes(), fixture) {
				t.Errorf("forwarded stream differs from the upstream's:\n got %q\nwant %q", forwarded.Bytes(), fixture)
			}
		})
	}
}

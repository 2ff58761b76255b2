package dispatchtest_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/gemini"
	"github.com/heddle-gw/heddle/llm/responses"
)

// answer is what a codec read from one fake answer.
type answer struct {
	text, toolID, toolName, toolArgs string
	stop                             llm.StopReason
	usage                            llm.Usage
	model                            string
}

func fromResponse(r *llm.Response) answer {
	a := answer{stop: r.StopReason, usage: r.Usage, model: r.Model}
	for _, p := range r.Content {
		switch p.Type {
		case llm.PartText:
			a.text += p.Text
		case llm.PartToolCall:
			a.toolID, a.toolName, a.toolArgs = p.ID, p.Name, string(p.Arguments)
		}
	}
	return a
}

func fromStream(t *testing.T, d llm.StreamDecoder) (answer, []llm.EventType) {
	t.Helper()
	var a answer
	var types []llm.EventType
	for {
		e, err := d.Next()
		if errors.Is(err, io.EOF) {
			return a, types
		}
		if err != nil {
			t.Fatalf("stream: %v (events so far %v)", err, types)
		}
		types = append(types, e.Type)
		switch e.Type {
		case llm.EventMessageStart:
			if e.Model != "" {
				a.model = e.Model
			}
		case llm.EventBlockStart:
			if e.Block != nil && e.Block.Type == llm.PartToolCall {
				a.toolID, a.toolName = e.Block.ID, e.Block.Name
			}
		case llm.EventTextDelta:
			a.text += e.Text
		case llm.EventToolDelta:
			a.toolArgs += e.Text
		case llm.EventMessageDelta:
			a.stop = e.StopReason
			if e.Usage != nil {
				a.usage = *e.Usage
			}
		}
	}
}

func post(t *testing.T, url, body string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, raw
}

// TestUpstreamSpeaksResponsesAndGemini plays text and tool-call steps,
// streaming and not, and reads every answer back with Heddle's own codec of
// that format, so the fake answers what the codecs (and the real providers)
// expect.
func TestUpstreamSpeaksResponsesAndGemini(t *testing.T) {
	const args = `{"city":"Paris","days":2}`
	usage := llm.Usage{Input: 21, Output: 7}
	type format struct {
		name   string
		format llm.Format
		codec  llm.Codec
		url    func(base, model string, stream bool) string
		body   func(model string, stream bool) string
		// toolID is the id the codec reads for a scripted Tool("call_abc"):
		// Gemini sends no id, so its codec synthesizes one from responseId.
		toolID string
	}
	formats := []format{
		{
			name: "responses", format: llm.FormatResponses, codec: responses.New(), toolID: "call_abc",
			url: func(base, _ string, _ bool) string { return base + "/v1/responses" },
			body: func(model string, stream bool) string {
				if stream {
					return `{"model":"` + model + `","stream":true,"input":"hi"}`
				}
				return `{"model":"` + model + `","input":"hi"}`
			},
		},
		{
			name: "gemini", format: llm.FormatGemini, codec: gemini.New(), toolID: "call_gemfake01_1",
			url: func(base, model string, stream bool) string {
				if stream {
					return base + "/v1beta/models/" + model + ":streamGenerateContent?alt=sse"
				}
				return base + "/v1beta/models/" + model + ":generateContent"
			},
			body: func(string, bool) string { return `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}` },
		},
	}
	steps := []struct {
		name string
		step dispatchtest.Step
		want func(f format) answer
	}{
		{"text", dispatchtest.Step{Text: "It is sunny in Paris", InputTokens: 21, OutputTokens: 7},
			func(format) answer {
				return answer{text: "It is sunny in Paris", stop: llm.StopEnd, usage: usage, model: "m-1"}
			}},
		{"default text", dispatchtest.Step{InputTokens: 21, OutputTokens: 7},
			func(format) answer {
				return answer{text: "Hello from m-1", stop: llm.StopEnd, usage: usage, model: "m-1"}
			}},
		{"tool", dispatchtest.Step{Tool: &dispatchtest.ToolCall{ID: "call_abc", Name: "weather", Arguments: args},
			InputTokens: 21, OutputTokens: 7},
			func(f format) answer {
				return answer{toolID: f.toolID, toolName: "weather", toolArgs: args, stop: llm.StopToolUse,
					usage: usage, model: "m-1"}
			}},
	}
	for _, f := range formats {
		for _, s := range steps {
			for _, stream := range []bool{false, true} {
				name := f.name + "/" + s.name
				if stream {
					name += "/stream"
				}
				t.Run(name, func(t *testing.T) {
					up := dispatchtest.NewUpstream(t)
					up.Script("m-1", s.step)
					resp, raw := post(t, f.url(up.URL, "m-1", stream), f.body("m-1", stream))
					if resp.StatusCode != 200 {
						t.Fatalf("status %d: %s", resp.StatusCode, raw)
					}
					var got answer
					if stream {
						if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
							t.Errorf("content type %q", ct)
						}
						var types []llm.EventType
						got, types = fromStream(t, f.codec.NewStreamDecoder(strings.NewReader(string(raw))))
						if types[0] != llm.EventMessageStart || types[len(types)-1] != llm.EventDone {
							t.Errorf("event types %v", types)
						}
					} else {
						r, err := f.codec.DecodeResponse(raw)
						if err != nil {
							t.Fatalf("decode %s: %v", raw, err)
						}
						got = fromResponse(r)
					}
					if want := s.want(f); got != want {
						t.Errorf("read back %+v\nwant       %+v\nbody: %s", got, want, raw)
					}
					reqs := up.Requests()
					if len(reqs) != 1 || reqs[0].Format != f.format || reqs[0].Model != "m-1" || reqs[0].Stream != stream {
						t.Fatalf("recorded %+v", reqs)
					}
					if up.Pending() != 0 {
						t.Errorf("%d steps unplayed", up.Pending())
					}
				})
			}
		}
	}
}

// TestUpstreamErrorShapes checks the scripted error bodies of the two
// formats decode as their native error shapes.
func TestUpstreamErrorShapes(t *testing.T) {
	tests := []struct {
		name, path, body, want string
	}{
		{"responses 429", "/v1/responses", `{"model":"m-1","input":"hi"}`,
			`{"error":{"code":null,"message":"slow down","param":null,"type":"rate_limit_exceeded"}}`},
		{"gemini 429", "/v1beta/models/m-1:generateContent", `{}`,
			`{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := dispatchtest.NewUpstream(t)
			up.Script("m-1", dispatchtest.Step{Status: 429, RetryAfter: "3", Message: "slow down"})
			resp, raw := post(t, up.URL+tc.path, tc.body)
			if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" || string(raw) != tc.want {
				t.Errorf("status %d retry-after %q body %s", resp.StatusCode, resp.Header.Get("Retry-After"), raw)
			}
		})
	}
}

// TestGeminiRouteOnlyModelsPaths checks paths that are not Gemini methods
// are refused.
func TestGeminiRouteOnlyModelsPaths(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	for _, p := range []string{"/v1beta/models/m-1:countTokens", "/v1beta/models/:generateContent", "/v1beta/other"} {
		resp, _ := post(t, up.URL+p, `{}`)
		if resp.StatusCode != 404 {
			t.Errorf("%s: status %d, want 404", p, resp.StatusCode)
		}
	}
}

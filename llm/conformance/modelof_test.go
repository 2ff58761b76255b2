package conformance

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

// modelOfMembers are, per format, the members a request needs besides its
// model (rest), and a complete request whose messages and tools hold
// "model" members of their own (nested).
var modelOfMembers = map[llm.Format]struct{ rest, nested string }{
	llm.FormatAnthropic: {`"max_tokens":1,"messages":[]`,
		`"max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"{\"model\":\"in-text\"}"}]}],"tools":[{"name":"t","input_schema":{"type":"object","properties":{"model":{"type":"string"}}}}]`},
	llm.FormatChat: {`"messages":[]`,
		`"messages":[{"role":"user","content":"{\"model\":\"in-text\"}"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"model":{"type":"string"}}}}}]`},
	llm.FormatResponses: {`"input":"x"`,
		`"input":[{"role":"user","content":"{\"model\":\"in-text\"}"}],"tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"model":{"type":"string"}}}}]`},
	llm.FormatGemini: {`"contents":[{"parts":[{"text":"x"}]}]`,
		`"contents":[{"parts":[{"text":"{\"model\":\"in-text\"}"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"OBJECT","properties":{"model":{"type":"STRING"}}}}]}]`},
}

// modelBody is a request body whose model a reader that differs from the
// decoder gets wrong, with the model DecodeRequest reads from it (hence the
// one ModelOf, and so the dispatch target guard, must read). A Gemini body
// never names its model (the URL does): there both read "".
type modelBody struct{ name, body, model string }

// modelBodies are f's bodies with repeated members, escaped and differently
// cased keys, "model" members nested in messages, tools and unknown members,
// and odd white space.
func modelBodies(f llm.Format) []modelBody {
	m := modelOfMembers[f]
	bodies := []modelBody{
		{"repeated: the last wins", `{"model":"first",` + m.rest + `,"model":"last"}`, "last"},
		{"repeated after null", `{"model":null,` + m.rest + `,"model":"after-null"}`, "after-null"},
		{"escaped key", `{"mod\u0065l":"escaped",` + m.rest + `}`, "escaped"},
		{"escaped key repeated", `{"model":"plain",` + m.rest + `,"\u006dodel":"escaped-last"}`, "escaped-last"},
		{"escaped value", `{"model":"caf\u00e9 \"q\"",` + m.rest + `}`, "café \"q\""},
		{"other letter case is another member", `{"model":"lower","Model":"upper","MODEL":"caps",` + m.rest + `}`, "lower"},
		{"nested members do not count", `{"x_beta":{"model":"nested","list":[{"model":"deeper"}]},` + m.nested + `,"model":"top"}`, "top"},
		{"white space", "{\n\t\"model\" :\r\n \"spaced\" ,\n " + m.rest + " }", "spaced"},
	}
	if !keepsModel(f) {
		for i := range bodies {
			bodies[i].model = ""
		}
	}
	return bodies
}

// TestModelOfReadsAsDecodeRequest checks every codec's ModelOf against its
// DecodeRequest on bodies built to tell two readers apart.
func TestModelOfReadsAsDecodeRequest(t *testing.T) {
	for _, f := range llm.Formats {
		c := newCodec(f)
		for _, tt := range modelBodies(f) {
			t.Run(string(f)+"/"+tt.name, func(t *testing.T) {
				req, err := c.DecodeRequest([]byte(tt.body))
				if err != nil {
					t.Fatalf("DecodeRequest(%s): %v", tt.body, err)
				}
				got, err := c.ModelOf([]byte(tt.body))
				if err != nil || got != tt.model || req.Model != tt.model {
					t.Errorf("ModelOf = %q, %v; DecodeRequest read %q; want %q", got, err, req.Model, tt.model)
				}
			})
		}
	}
}

// fuzzModelOf checks that for every body f's DecodeRequest accepts, ModelOf
// reads the same model, before and after SetModel (the fast path the target
// guard checks). The corpus is modelBodies and the codec's request fixtures.
func fuzzModelOf(f *testing.F, format llm.Format) {
	for _, tt := range modelBodies(format) {
		f.Add([]byte(tt.body))
	}
	dir := map[llm.Format]string{llm.FormatAnthropic: "anthropic", llm.FormatChat: "openaichat", llm.FormatResponses: "responses", llm.FormatGemini: "gemini"}[format]
	fixtures, _ := filepath.Glob(filepath.Join("..", dir, "testdata", "requests", "*.json"))
	fixtures = append(fixtures, filepath.Join("testdata", "fixtures", "request", string(format)+".json"))
	for _, p := range fixtures {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	c := newCodec(format)
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := c.DecodeRequest(body)
		if err != nil {
			return
		}
		if got, err := c.ModelOf(body); err != nil || got != req.Model {
			t.Fatalf("ModelOf = %q, %v; DecodeRequest read %q", got, err, req.Model)
		}
		set, err := c.SetModel(body, "planned")
		if err != nil {
			t.Fatalf("SetModel: %v", err)
		}
		again, err := c.DecodeRequest(set)
		if err != nil {
			t.Fatalf("DecodeRequest after SetModel: %v\n%s", err, set)
		}
		if got, err := c.ModelOf(set); err != nil || got != again.Model || (keepsModel(format) && got != "planned") {
			t.Fatalf("after SetModel: ModelOf = %q, %v; DecodeRequest read %q", got, err, again.Model)
		}
	})
}

func FuzzModelOfAnthropic(f *testing.F) { fuzzModelOf(f, llm.FormatAnthropic) }
func FuzzModelOfChat(f *testing.F)      { fuzzModelOf(f, llm.FormatChat) }
func FuzzModelOfResponses(f *testing.F) { fuzzModelOf(f, llm.FormatResponses) }
func FuzzModelOfGemini(f *testing.F)    { fuzzModelOf(f, llm.FormatGemini) }

package gemini

import "testing"

// modelBodies are request bodies that name a model in every way the other
// formats read one. A Gemini body never names its model (the URL does):
// DecodeRequest leaves Request.Model empty and ModelOf returns "", whatever
// the body says; model records what the other formats would read.
var modelBodies = []struct{ name, body, model string }{
	{"repeated: the last wins", `{"model":"first","contents":[{"parts":[{"text":"x"}]}],"model":"last"}`, "last"},
	{"repeated after null", `{"model":null,"contents":[{"parts":[{"text":"x"}]}],"model":"after-null"}`, "after-null"},
	{"escaped key", `{"mod\u0065l":"escaped","contents":[{"parts":[{"text":"x"}]}]}`, "escaped"},
	{"escaped key repeated", `{"model":"plain","contents":[{"parts":[{"text":"x"}]}],"\u006dodel":"escaped-last"}`, "escaped-last"},
	{"escaped value", `{"model":"caf\u00e9 \"q\"","contents":[{"parts":[{"text":"x"}]}]}`, "café \"q\""},
	{"other letter case is another member", `{"model":"lower","Model":"upper","MODEL":"caps","contents":[{"parts":[{"text":"x"}]}]}`, "lower"},
	{"nested members do not count", `{"x_beta":{"model":"nested","list":[{"model":"deeper"}]},"contents":[{"parts":[{"text":"{\"model\":\"in-text\"}"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"OBJECT","properties":{"model":{"type":"STRING"}}}}]}],"model":"top"}`, "top"},
	{"white space", "{\n\t\"model\" :\r\n \"spaced\" ,\n " + `"contents":[{"parts":[{"text":"x"}]}]` + " }", "spaced"},
}

func TestModelOfReadsAsDecodeRequest(t *testing.T) {
	c := New()
	for _, tt := range modelBodies {
		t.Run(tt.name, func(t *testing.T) {
			req, err := c.DecodeRequest([]byte(tt.body))
			if err != nil {
				t.Fatalf("DecodeRequest(%s): %v", tt.body, err)
			}
			got, err := c.ModelOf([]byte(tt.body))
			if err != nil || got != "" || req.Model != "" {
				t.Errorf("ModelOf = %q, %v; DecodeRequest read %q; want %q", got, err, req.Model, "")
			}
		})
	}
}

// FuzzModelOf: for every body DecodeRequest accepts, ModelOf reads the same
// model, before and after SetModel (the fast path the target guard checks).
func FuzzModelOf(f *testing.F) {
	for _, tt := range modelBodies {
		f.Add([]byte(tt.body))
	}
	seed(f, "requests")
	c := New()
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
		if got, err := c.ModelOf(set); err != nil || got != again.Model || (false && got != "planned") {
			t.Fatalf("after SetModel: ModelOf = %q, %v; DecodeRequest read %q", got, err, again.Model)
		}
	})
}

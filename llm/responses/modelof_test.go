package responses

import "testing"

// modelBodies are request bodies whose model a reader that differs from the
// decoder gets wrong: repeated members, escaped and differently cased keys,
// "model" members nested in messages, tools and unknown members, and odd
// white space. model is what DecodeRequest reads, hence what ModelOf (and so
// the dispatch target guard) must read.
var modelBodies = []struct{ name, body, model string }{
	{"repeated: the last wins", `{"model":"first","input":"x","model":"last"}`, "last"},
	{"repeated after null", `{"model":null,"input":"x","model":"after-null"}`, "after-null"},
	{"escaped key", `{"mod\u0065l":"escaped","input":"x"}`, "escaped"},
	{"escaped key repeated", `{"model":"plain","input":"x","\u006dodel":"escaped-last"}`, "escaped-last"},
	{"escaped value", `{"model":"caf\u00e9 \"q\"","input":"x"}`, "café \"q\""},
	{"other letter case is another member", `{"model":"lower","Model":"upper","MODEL":"caps","input":"x"}`, "lower"},
	{"nested members do not count", `{"x_beta":{"model":"nested","list":[{"model":"deeper"}]},"input":[{"role":"user","content":"{\"model\":\"in-text\"}"}],"tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"model":{"type":"string"}}}}],"model":"top"}`, "top"},
	{"white space", "{\n\t\"model\" :\r\n \"spaced\" ,\n " + `"input":"x"` + " }", "spaced"},
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
			if err != nil || got != tt.model || req.Model != tt.model {
				t.Errorf("ModelOf = %q, %v; DecodeRequest read %q; want %q", got, err, req.Model, tt.model)
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
		if got, err := c.ModelOf(set); err != nil || got != again.Model || (true && got != "planned") {
			t.Fatalf("after SetModel: ModelOf = %q, %v; DecodeRequest read %q", got, err, again.Model)
		}
	})
}

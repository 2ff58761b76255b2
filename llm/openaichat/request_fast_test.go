package openaichat

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// checkFastRequest fails t when fastRequest takes body but DecodeRequest
// then answers otherwise than through encoding/json (request or error),
// or takes a body encoding/json rejects. It reports whether the fast path
// took the body.
func checkFastRequest(t *testing.T, body []byte) bool {
	t.Helper()
	in, model, ok := fastRequest(body)
	if !ok {
		return false
	}
	got, gotErr := requestOf(&in, model)
	want, wantErr := decodeRequestJSON(body)
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotErr, wantErr) {
		t.Fatalf("fast path reads\n%#v, %v\nencoding/json reads\n%#v, %v\nbody %q", got, gotErr, want, wantErr, body)
	}
	return true
}

// FuzzFastRequest compares the one-pass request reader with encoding/json
// on arbitrary bodies and mutations of the golden requests.
func FuzzFastRequest(f *testing.F) {
	addFiles(f, "testdata/requests/*.json")
	for _, tc := range fastRequestCases {
		f.Add([]byte(tc.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkFastRequest(t, body)
	})
}

var fastRequestCases = []struct {
	name string
	body string
	fast bool // the fast path must take it
}{
	{"load shape", `{"model":"gpt-5-mini","stream":false,"messages":[{"role":"user","content":"load question 17"}]}`, true},
	{"tool loop", string(benchRequestTools), true},
	{"every scalar", `{"model":"m","messages":[{"role":"user","content":"hi","name":"bob"}],"parallel_tool_calls":false,"max_tokens":5,"max_completion_tokens":7,"temperature":1,"top_p":0.5,"stop":"END","seed":-42,"n":1,"reasoning_effort":"low","stream":true,"stream_options":{"include_usage":false},"user":"u1","metadata":{"a":"1","b":null,"a":"2"}}`, true},
	{"nulls", `{"model":"m","messages":[null,{"role":"user","content":"x","name":null,"tool_calls":null,"refusal":null}],"tools":null,"tool_choice":null,"parallel_tool_calls":null,"max_tokens":null,"temperature":null,"top_p":null,"stop":null,"seed":null,"n":null,"response_format":null,"reasoning_effort":null,"stream":null,"stream_options":null,"user":null,"metadata":null}`, true},
	{"null model", `{"model":null,"messages":[]}`, true},
	{"no messages", `{"model":"m"}`, true},
	{"empty messages", `{"model":"m","messages":[]}`, true},
	{"empty stop and metadata", `{"model":"m","messages":[],"stop":[],"metadata":{},"tools":[]}`, true},
	{"stop list", `{"model":"m","messages":[],"stop":["a",null,"b"]}`, true},
	{"parts", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral","ttl":"1h"}},{"type":"image_url","image_url":{"url":"https://x/y.png","detail":"low"}},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0=","filename":"a.pdf"}},{"type":"refusal","refusal":"no"},null]}]}`, true},
	{"system and developer", `{"model":"m","messages":[{"role":"system","content":[{"type":"text","text":"s"}]},{"role":"developer","content":"d"},{"role":"user","content":"u"}]}`, true},
	{"assistant", `{"model":"m","messages":[{"role":"assistant","content":[{"type":"text","text":""},{"type":"text","text":"kept"}],"refusal":"r"},{"role":"assistant","refusal":"only"},{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"  "}},null]}]}`, true},
	{"tool message", `{"model":"m","messages":[{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":"r"}]}]}`, true},
	{"tools", `{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{ "type" : "object" },"strict":true}},{"type":"function","function":{"name":"g","parameters":null}}],"tool_choice":{"type":"function","function":{"name":"f"}}}`, true},
	{"tool choices", `{"model":"m","messages":[],"tool_choice":"required"}`, true},
	{"response format schema", `{"model":"m","messages":[],"response_format":{"type":"json_schema","json_schema":{"name":"n","schema":{"type":"object","properties":{}},"strict":true}}}`, true},
	{"response format null schema", `{"model":"m","messages":[],"response_format":{"type":"json_schema","json_schema":{"name":"n","schema":null}}}`, true},
	{"json object", `{"model":"m","messages":[],"response_format":{"type":"json_object"}}`, true},
	{"reasoning none", `{"model":"m","messages":[],"reasoning_effort":"none"}`, true},
	{"escapes and utf-8", `{"model":"gpt-\u00e9","messages":[{"role":"user","content":"Gr\u00fc\u00dfe \ud83d\ude00 \"q\" 世界"}]}`, true},
	{"unknown members", `{"x":{"a":[1,-2.5e+3,true,null]},"model":"m","logprobs":true,"messages":[{"role":"user","content":"x","extra":[{}]}],"frequency_penalty":0.1}`, true},
	{"white space", " {\n \"model\" : \"m\" ,\t\"messages\" : [ { \"role\" : \"user\" , \"content\" : \"x\" } ] } \r\n", true},
	// Semantic errors: the fast path reads the body, the checks answer.
	{"no model", `{"messages":[{"role":"user","content":"x"}]}`, true},
	{"n=2", `{"model":"m","messages":[],"n":2}`, true},
	{"negative max tokens", `{"model":"m","messages":[],"max_tokens":-1}`, true},
	{"unknown role", `{"model":"m","messages":[{"role":"robot","content":"x"}]}`, true},
	{"no role", `{"model":"m","messages":[{"content":"x"}]}`, true},
	{"null content", `{"model":"m","messages":[{"role":"user","content":null}]}`, true},
	{"image in system", `{"model":"m","messages":[{"role":"system","content":[{"type":"image_url","image_url":{"url":"u"}}]}]}`, true},
	{"part without type", `{"model":"m","messages":[{"role":"user","content":[{"text":"x"}]}]}`, true},
	{"image without url", `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url"}]}]}`, true},
	{"file id", `{"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{"file_id":"f"}}]}]}`, true},
	{"tool without id", `{"model":"m","messages":[{"role":"tool","content":"x"}]}`, true},
	{"call without name", `{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{}}]}]}`, true},
	{"bad tool type", `{"model":"m","messages":[],"tools":[{"type":"web"}]}`, true},
	{"unknown tool choice", `{"model":"m","messages":[],"tool_choice":"any"}`, true},
	{"named choice without name", `{"model":"m","messages":[],"tool_choice":{"type":"function","function":null}}`, true},
	{"unknown response format", `{"model":"m","messages":[],"response_format":{"type":"xml"}}`, true},
	{"schema required", `{"model":"m","messages":[],"response_format":{"type":"json_schema"}}`, true},
	// The fast path gives up on these; DecodeRequest must still answer as before.
	{"duplicate model", `{"model":"a","model":"b","messages":[]}`, false},
	{"duplicate message member", `{"model":"m","messages":[{"role":"user","role":"system","content":"x"}]}`, false},
	{"upper-case key", `{"Model":"m","messages":[]}`, false},
	{"upper-case member", `{"model":"m","messages":[],"Stream":true}`, false},
	{"escaped key", `{"mod\u0065l":"m","messages":[]}`, false},
	{"upper-case metadata key", `{"model":"m","messages":[],"metadata":{"Trace":"t"}}`, false},
	{"float max tokens", `{"model":"m","messages":[],"max_tokens":1.5}`, false},
	{"string temperature", `{"model":"m","messages":[],"temperature":"1"}`, false},
	{"huge temperature", `{"model":"m","messages":[],"temperature":1e400}`, false},
	{"number model", `{"model":5,"messages":[]}`, false},
	{"object messages", `{"model":"m","messages":{}}`, false},
	{"number content", `{"model":"m","messages":[{"role":"user","content":5}]}`, false},
	{"object content", `{"model":"m","messages":[{"role":"user","content":{"type":"text"}}]}`, false},
	{"number stop", `{"model":"m","messages":[],"stop":5}`, false},
	{"number tool choice", `{"model":"m","messages":[],"tool_choice":5}`, false},
	{"string stream", `{"model":"m","messages":[],"stream":"true"}`, false},
	{"tool calls on a user", `{"model":"m","messages":[{"role":"user","content":"x","tool_calls":5}]}`, false},
	{"lone surrogate", `{"model":"m","messages":[{"role":"user","content":"\ud83d"}]}`, false},
	{"invalid utf-8", "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"a\xffb\"}]}", false},
	{"null body", `null`, false},
	{"array body", `[]`, false},
	{"empty body", ``, false},
	{"trailing data", `{"model":"m","messages":[]} x`, false},
	{"truncated", `{"model":"m","messages":[{"role":"user","content":"x"`, false},
	{"trailing comma", `{"model":"m","messages":[],}`, false},
}

func TestFastRequest(t *testing.T) {
	for _, tc := range fastRequestCases {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			if took := checkFastRequest(t, body); took != tc.fast {
				t.Fatalf("fast path took the body: %v, want %v", took, tc.fast)
			}
			got, gotErr := New().DecodeRequest(body)
			want, wantErr := decodeRequestJSON(body)
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotErr, wantErr) {
				t.Fatalf("DecodeRequest = %#v, %v; want %#v, %v", got, gotErr, want, wantErr)
			}
		})
	}
}

func TestFastRequestGoldens(t *testing.T) {
	files, err := filepath.Glob("testdata/requests/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no request goldens: %v", err)
	}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !checkFastRequest(t, body) {
			t.Errorf("%s: the fast path gave up on a golden request", f)
		}
	}
}

// TestDecodeRequestAllocations holds the load bench's request shape to the
// allocations of the one-pass reader (encoding/json took 29).
func TestDecodeRequestAllocations(t *testing.T) {
	c := New()
	n := testing.AllocsPerRun(100, func() {
		if _, err := c.DecodeRequest(benchRequest); err != nil {
			t.Fatal(err)
		}
	})
	if n > 9 {
		t.Fatalf("DecodeRequest of the load shape: %v allocations, want at most 9", n)
	}
}

var benchRequest = []byte(`{"model":"gpt-5-mini","stream":false,"messages":[{"role":"user","content":"load question 17"}]}`)

var benchRequestTools = []byte(`{"model":"gpt-4.1","messages":[{"role":"system","content":"You are terse."},{"role":"user","content":[{"type":"text","text":"What is the weather in Paris?"}]},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},{"role":"tool","tool_call_id":"call_1","content":"18C, sunny"}],"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather of a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}],"tool_choice":"auto","max_tokens":256,"temperature":0.2,"stream":true,"stream_options":{"include_usage":true}}`)

func BenchmarkDecodeRequest(b *testing.B) {
	c := New()
	for _, bc := range []struct {
		name string
		body []byte
	}{{"small", benchRequest}, {"tools", benchRequestTools}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.DecodeRequest(bc.body); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.name+"/encoding_json", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeRequestJSON(bc.body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

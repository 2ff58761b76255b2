package openaichat

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/sse"
)

// priorChunk is read before each chunk under test, so that the reader's
// reused memory (choices, tool calls, strings) holds something.
var priorChunk = []byte(`{"id":"p","model":"pm","choices":[{"index":3,"delta":{"content":"old","refusal":"r","reasoning":"x","tool_calls":[{"index":2,"id":"t","function":{"name":"n","arguments":"a"}}]},"finish_reason":"stop"},{"index":0},{"index":1}]}`)

// checkFastChunk fails t when chunkReader accepts data but reads it
// otherwise than encoding/json reads it into a zero inChunk, or accepts
// data encoding/json rejects. It reports whether the fast path took data.
func checkFastChunk(t *testing.T, data []byte) bool {
	t.Helper()
	var took [2]bool
	for i, ids := range []bool{true, false} {
		var c chunkReader
		var prior inChunk
		if !c.read(priorChunk, &prior, true) {
			t.Fatal("the fast path gave up on priorChunk")
		}
		var got inChunk
		if took[i] = c.read(data, &got, ids); !took[i] {
			continue
		}
		var want inChunk
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("fast path accepted a chunk encoding/json rejects (%v):\n%q", err, data)
		}
		if !ids {
			want.ID, want.Model = "", ""
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("fast path (ids %v) reads\n%s\nencoding/json reads\n%s\nchunk %q", ids, show(got), show(want), data)
		}
	}
	// Without ids it may take more (an id of invalid UTF-8), never less.
	if took[0] && !took[1] {
		t.Fatalf("the fast path took %q with ids but not without", data)
	}
	return took[0]
}

// show renders a chunk with its pointers followed.
func show(ch inChunk) string {
	b, _ := json.Marshal(ch)
	return string(b)
}

// streamChunks returns the data of every frame of the golden streams but
// [DONE].
func streamChunks(tb testing.TB) [][]byte {
	tb.Helper()
	files, err := filepath.Glob("testdata/streams/*.sse")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no stream goldens: %v", err)
	}
	var out [][]byte
	for _, name := range append(files, "") {
		in, err := os.ReadFile(name)
		if name == "" {
			in, err = benchStream, nil
		}
		if err != nil {
			tb.Fatal(err)
		}
		r := sse.NewReader(bytes.NewReader(in))
		for {
			f, err := r.Next()
			if err != nil {
				break
			}
			if !f.IsDone() {
				out = append(out, bytes.Clone(f.Data))
			}
		}
	}
	return out
}

// FuzzFastStreamChunk compares the one-pass chunk reader with
// encoding/json on arbitrary chunks, seeded with the golden streams'.
func FuzzFastStreamChunk(f *testing.F) {
	for _, data := range streamChunks(f) {
		f.Add(data)
	}
	for _, tc := range fastChunkCases {
		f.Add([]byte(tc.data))
	}
	prior := streamChunks(f)[0]
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastChunk(t, data)
		if !bytes.ContainsAny(data, "\r\n") {
			checkStreamMatchesSlow(t, [][]byte{prior, data, data})
		}
	})
}

var fastChunkCases = []struct {
	name string
	data string
	fast bool // the fast path must take it
}{
	{"role", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4.1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}`, true},
	{"content", `{"id":"c","choices":[{"index":0,"delta":{"content":"Hello <b> & \"you\"\n"},"finish_reason":null}]}`, true},
	{"finish", `{"id":"c","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}`, true},
	{"usage", `{"id":"c","choices":[],"usage":{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":3,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":1}}}`, true},
	{"deepseek usage", `{"choices":[{"delta":{"content":""},"finish_reason":"stop"}],"usage":{"prompt_tokens":30,"prompt_cache_hit_tokens":20,"prompt_cache_miss_tokens":10}}`, true},
	{"tool call start", `{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"get_weather","arguments":""}}],"refusal":null},"finish_reason":null}]}`, true},
	{"tool call args", `{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"city\":"}},{"index":2,"function":null},null]}}]}`, true},
	{"empty tool calls", `{"choices":[{"delta":{"tool_calls":[]}}]}`, true},
	{"null tool calls", `{"choices":[{"delta":{"tool_calls":null}}]}`, true},
	{"reasoning", `{"choices":[{"delta":{"reasoning_content":"Think","reasoning":"","content":null}}]}`, true},
	{"refusal", `{"choices":[{"delta":{"refusal":"no"}}]}`, true},
	{"many choices", `{"choices":[{"index":1,"delta":{"content":"b"}},{"index":0,"delta":{"content":"a"}},null,{"delta":null}]}`, true},
	{"null members", `{"id":null,"model":null,"choices":null,"usage":null,"error":null}`, true},
	{"null index", `{"choices":[{"index":null,"delta":{"content":null},"finish_reason":null}]}`, true},
	{"escapes", `{"id":"caf\u00e9","choices":[{"delta":{"content":"\ud83d\ude00 \/ \b\f\r\t \u0000"}}]}`, true},
	{"raw utf-8", `{"model":"m","choices":[{"delta":{"content":"Grüße, 世界 😀"}}]}`, true},
	{"white space", " {\n \"id\" : \"c\" , \"choices\" : [ { \"delta\" : { \"content\" : \"x\" } } ] }\t", true},
	{"unknown members", `{"x":{"a":[1,-2.5e+3,true,false,null,"s",{}],"B":"\ud800"},"choices":[{"logprobs":{"content":[]},"delta":{"audio":{"id":"a"}}}]}`, true},
	{"negative index", `{"choices":[{"index":-1,"delta":{"tool_calls":[{"index":-2}]}}]}`, true},
	{"empty", `{}`, true},
	// The fast path gives up on these; encoding/json answers.
	{"error chunk", `{"error":{"message":"boom","type":"server_error","code":null}}`, false},
	{"duplicate content", `{"choices":[{"delta":{"content":"a","content":"b"}}]}`, false},
	{"duplicate choices", `{"choices":[{"index":0}],"choices":[{"index":1}]}`, false},
	{"duplicate id", `{"id":"a","id":"b"}`, false},
	{"duplicate tool calls", `{"choices":[{"delta":{"tool_calls":[{"id":"a"}],"tool_calls":[{"index":1}]}}]}`, false},
	{"duplicate usage", `{"usage":{"prompt_tokens":1},"usage":{"completion_tokens":2}}`, false},
	{"upper-case key", `{"choices":[{"Delta":{"content":"a"}}]}`, false},
	{"invalid utf-8", "{\"choices\":[{\"delta\":{\"content\":\"a\xffb\"}}]}", false},
	{"lone surrogate", `{"choices":[{"delta":{"content":"\ud83d"}}]}`, false},
	{"float index", `{"choices":[{"index":0.0}]}`, false},
	{"huge index", `{"choices":[{"index":12345678901234567890}]}`, false},
	{"string index", `{"choices":[{"index":"0"}]}`, false},
	{"number content", `{"choices":[{"delta":{"content":5}}]}`, false},
	{"number id", `{"id":5}`, false},
	{"object choices", `{"choices":{}}`, false},
	{"array delta", `{"choices":[{"delta":[]}]}`, false},
	{"null body", `null`, false},
	{"truncated", `{"choices":[{"delta":{"content":"x"`, false},
	{"trailing data", `{} {}`, false},
	{"bad escape", `{"id":"\x"}`, false},
}

func TestFastStreamChunk(t *testing.T) {
	for _, tc := range fastChunkCases {
		t.Run(tc.name, func(t *testing.T) {
			if took := checkFastChunk(t, []byte(tc.data)); took != tc.fast {
				t.Fatalf("fast path took the chunk: %v, want %v", took, tc.fast)
			}
		})
	}
}

// TestFastStreamChunkGoldens checks that the fast path takes every chunk
// of the golden streams but the error one.
func TestFastStreamChunkGoldens(t *testing.T) {
	for _, data := range streamChunks(t) {
		took := checkFastChunk(t, data)
		if isError := bytes.HasPrefix(data, []byte(`{"error"`)); took == isError {
			t.Errorf("fast path took %q: %v", data, took)
		}
	}
}

// TestStreamDecodeFallsBack checks that a stream whose chunks the fast path
// declines decodes as before, chunk by chunk beside ones it takes.
func TestStreamDecodeFallsBack(t *testing.T) {
	stream := "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"delta\":{\"content\":\"a\xffb\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"c\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"d\",\"Content\":\"e\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\n\n" +
		"data: [DONE]\n\n"
	evs, end := drain(New().NewStreamDecoder(bytes.NewReader([]byte(stream))))
	if end != io.EOF {
		t.Fatalf("end = %v", end)
	}
	var text string
	for _, e := range evs {
		text += e.Text
	}
	// encoding/json reads invalid UTF-8 as U+FFFD, and the later of
	// "content" and "Content" (keys match case-insensitively).
	if want := "a\uFFFDbce"; text != want {
		t.Errorf("text = %q, want %q", text, want)
	}
	if evs[0].ID != "c1" || evs[0].Model != "m" {
		t.Errorf("message start = %+v", evs[0])
	}
}

// slowChunk is data with an upper-case member the fast path declines and
// encoding/json ignores, so that a decoder reads it with encoding/json.
func slowChunk(data []byte) []byte {
	trimmed := bytes.TrimLeft(data, " \t")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return data
	}
	rest := trimmed[1:]
	if r := bytes.TrimLeft(rest, " \t"); len(r) > 0 && r[0] == '}' {
		return append([]byte(`{"X":0`), rest...)
	}
	return append([]byte(`{"X":0,`), rest...)
}

// checkStreamMatchesSlow fails t when a stream of chunks decodes otherwise
// than the same stream read chunk by chunk with encoding/json: the same
// events (but for Raw) and the same end. It catches what one chunk's read
// leaves behind for the next.
func checkStreamMatchesSlow(t *testing.T, chunks [][]byte) {
	t.Helper()
	decode := func(conv func([]byte) []byte) ([]llm.Event, error) {
		var in bytes.Buffer
		for _, c := range chunks {
			var r chunkReader
			if conv != nil && r.read(slowChunk(c), &inChunk{}, true) {
				t.Fatalf("the fast path took %q", slowChunk(c))
			}
			in.WriteString("data: ")
			if conv != nil {
				c = conv(c)
			}
			in.Write(c)
			in.WriteString("\n\n")
		}
		in.WriteString("data: [DONE]\n\n")
		evs, end := drain(testCodec().NewStreamDecoder(&in))
		for i := range evs {
			evs[i].Raw = nil
		}
		return evs, end
	}
	got, gotEnd := decode(nil)
	want, wantEnd := decode(slowChunk)
	if (gotEnd == io.EOF) != (wantEnd == io.EOF) || errors.Is(gotEnd, llm.ErrMalformed) != errors.Is(wantEnd, llm.ErrMalformed) {
		t.Fatalf("stream ends with %v, with encoding/json %v; chunks %q", gotEnd, wantEnd, chunks)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("stream decodes to\n%+v\nwith encoding/json\n%+v\nchunks %q", got, want, chunks)
	}
}

func TestStreamDecodeMatchesSlow(t *testing.T) {
	checkStreamMatchesSlow(t, streamChunks(t))
	for name, chunks := range map[string][]string{
		"no choices after content": {
			`{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`,
			`{"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
		},
		"tool calls then none": {
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"t","function":{"name":"f","arguments":"{"}}]}}]}`,
			`{"choices":[{"delta":{"content":"x"}}]}`,
			`{}`,
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]},"finish_reason":"tool_calls"}]}`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			var bs [][]byte
			for _, c := range chunks {
				bs = append(bs, []byte(c))
			}
			checkStreamMatchesSlow(t, bs)
		})
	}
}

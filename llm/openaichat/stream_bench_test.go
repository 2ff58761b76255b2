package openaichat

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/llm"
)

// benchWords are the content deltas of benchStream: short tokens, as a
// model streams them, with a quote, a newline and a non-ASCII word among
// them.
var benchWords = strings.Fields(`The capital of France is Paris , a city of about two million people on
	the Seine . It has been the capital since the 10th century , apart from a few short periods ; its
	museums , the Louvre and the Orsay , hold some of the most visited collections in the world . Café
	culture , "haute cuisine" and fashion`)

// benchStream is a realistic 53-chunk stream as OpenAI writes it with
// include_usage: the role chunk, 50 content chunks, the finish chunk and
// the usage chunk, then [DONE].
var benchStream = func() []byte {
	const head = `data: {"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_b42d5a2d02","choices":[`
	var b bytes.Buffer
	b.WriteString(head + `{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n")
	for i := range 50 {
		w := benchWords[i%len(benchWords)]
		if i > 0 && w != "," && w != "." && w != ";" {
			w = " " + w
		}
		if i == 30 {
			w += `\n`
		}
		w = strings.ReplaceAll(w, `"`, `\"`)
		fmt.Fprintf(&b, "%s{\"index\":0,\"delta\":{\"content\":\"%s\"},\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n", head, w)
	}
	b.WriteString(head + `{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}` + "\n\n")
	b.WriteString(head + `],"usage":{"prompt_tokens":19,"completion_tokens":50,"total_tokens":69,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}()

// benchEvents are the canonical events of benchStream.
func benchEvents(tb testing.TB) []llm.Event {
	tb.Helper()
	evs, err := drain(New().NewStreamDecoder(bytes.NewReader(benchStream)))
	if err != io.EOF {
		tb.Fatalf("decoding benchStream: %v", err)
	}
	for i := range evs {
		evs[i].Raw = nil
	}
	return evs
}

func BenchmarkStreamDecode(b *testing.B) {
	c := New()
	var r bytes.Reader
	b.SetBytes(int64(len(benchStream)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(benchStream)
		d := c.NewStreamDecoder(&r)
		for {
			_, err := d.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkStreamEncode(b *testing.B) {
	evs := benchEvents(b)
	c := &Codec{NewID: RandomID, Now: func() time.Time { return time.Unix(1741570283, 0) }}
	b.ReportAllocs()
	for b.Loop() {
		enc := c.NewUsageStreamEncoder(io.Discard, true)
		for _, e := range evs {
			if err := enc.Encode(e); err != nil {
				b.Fatal(err)
			}
		}
	}
}

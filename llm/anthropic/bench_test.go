package anthropic

import (
	"os"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/llm/openaichat"
)

// benchBody is a synthetic request shaped like Claude Code's: a long cached
// system prompt, 16 tools with schemas, and a four-step tool loop (~50 kB).
func benchBody(b *testing.B) []byte {
	b.Helper()
	body, err := os.ReadFile("testdata/bench/claude_code.json")
	if err != nil {
		b.Fatal(err)
	}
	return body
}

func fastPath(body []byte) func(*testing.B) {
	return func(b *testing.B) {
		c := New()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if _, err := c.SetModel(body, "claude-haiku-4-5"); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func toChat(body []byte) func(*testing.B) {
	return func(b *testing.B) {
		c, chat := New(), openaichat.New()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			req, err := c.DecodeRequest(body)
			if err != nil {
				b.Fatal(err)
			}
			req.Model = "gpt-4.1"
			if _, err := chat.EncodeRequest(req); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func sameFormatRecode(body []byte) func(*testing.B) {
	return func(b *testing.B) {
		c := New()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			req, err := c.DecodeRequest(body)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.EncodeRequest(req); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkClaudeCodeRequest times the same-format fast path (SetModel), a
// decode and re-encode in the same format, and the translation to Chat
// Completions of one Claude Code-sized request.
func BenchmarkClaudeCodeRequest(b *testing.B) {
	body := benchBody(b)
	b.Run("fast_path", fastPath(body))
	b.Run("recode_anthropic", sameFormatRecode(body))
	b.Run("translate_to_chat", toChat(body))
}

// BenchmarkTranslationRatio runs the fast path and the translation to Chat
// Completions alternately on the same request and reports the translation's
// time as a multiple of the fast path's (ratio), with both per-op timings.
func BenchmarkTranslationRatio(b *testing.B) {
	body := benchBody(b)
	c, chat := New(), openaichat.New()
	var fast, slow time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := c.SetModel(body, "gpt-4.1"); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		req, err := c.DecodeRequest(body)
		if err != nil {
			b.Fatal(err)
		}
		req.Model = "gpt-4.1"
		if _, err := chat.EncodeRequest(req); err != nil {
			b.Fatal(err)
		}
		fast += t1.Sub(t0)
		slow += time.Since(t1)
	}
	if fast <= 0 {
		b.Fatal("the fast path measured no time")
	}
	n := float64(b.N)
	b.ReportMetric(float64(slow)/float64(fast), "ratio")
	b.ReportMetric(float64(fast.Microseconds())/n, "fast_µs/op")
	b.ReportMetric(float64(slow.Microseconds())/n, "translate_µs/op")
}

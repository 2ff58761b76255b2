package openaichat

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/anthropic"
)

func addFiles(f *testing.F, pattern string) {
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed files match %s", pattern)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzDecodeRequest checks that no body panics the decoder and that what it
// accepts encodes (to this format and to Anthropic Messages) and decodes
// again.
func FuzzDecodeRequest(f *testing.F) {
	addFiles(f, "testdata/requests/*.json")
	f.Add([]byte(`{"model":"m","messages":[{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":""}]},{"role":"user","content":[{"type":"file","file":{"file_data":"data:text/plain;base64,aGk="}}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		c := New()
		req, err := c.DecodeRequest(body)
		if err != nil {
			return
		}
		enc, err := c.EncodeRequest(req)
		if err != nil {
			t.Fatalf("EncodeRequest of a decoded request: %v", err)
		}
		if _, err := c.DecodeRequest(enc); err != nil {
			t.Fatalf("re-decode: %v\n%s", err, enc)
		}
		a := anthropic.New()
		msgs, err := a.EncodeRequest(req)
		if err != nil {
			t.Fatalf("Anthropic encoding: %v", err)
		}
		if _, err := a.DecodeRequest(msgs); err != nil {
			t.Fatalf("Anthropic encoding does not decode: %v\n%s", err, msgs)
		}
	})
}

// FuzzDecodeResponse checks that no body panics the response decoder and
// that what it accepts encodes again.
func FuzzDecodeResponse(f *testing.F) {
	addFiles(f, "testdata/responses/*.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		c := New()
		r, err := c.DecodeResponse(body)
		if err != nil {
			return
		}
		enc, err := c.EncodeResponse(r)
		if err != nil {
			t.Fatalf("EncodeResponse: %v", err)
		}
		if _, err := c.DecodeResponse(enc); err != nil {
			t.Fatalf("re-decode: %v\n%s", err, enc)
		}
	})
}

// FuzzStreamDecoder checks that no stream panics the decoder, and that the
// events it emits can be written by both stream encoders.
func FuzzStreamDecoder(f *testing.F) {
	addFiles(f, "testdata/streams/*.sse")
	f.Fuzz(func(t *testing.T, stream []byte) {
		d := New().NewStreamDecoder(bytes.NewReader(stream))
		var own, msgs bytes.Buffer
		encoders := []llm.StreamEncoder{New().NewUsageStreamEncoder(&own, true), anthropic.New().NewStreamEncoder(&msgs)}
		for range 10000 {
			e, err := d.Next()
			if err != nil {
				return
			}
			for _, enc := range encoders {
				if err := enc.Encode(e); err != nil {
					t.Fatalf("Encode(%+v): %v", e, err)
				}
			}
		}
		t.Fatal("decoder did not end")
	})
}

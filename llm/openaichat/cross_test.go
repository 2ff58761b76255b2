package openaichat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/internal/golden"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/anthropic"
)

// The cross tests translate each format's fixtures into the other format;
// the goldens under testdata/cross pin the translation both ways.

func anthropicCodec() *anthropic.Codec {
	c := anthropic.New()
	n := 0
	c.NewID = func(prefix string) string {
		n++
		return fmt.Sprintf("%sgen%d", prefix, n)
	}
	return c
}

func crossName(fixture, to string) string {
	dir := filepath.Base(filepath.Dir(fixture))
	base := strings.TrimSuffix(filepath.Base(fixture), filepath.Ext(fixture))
	return filepath.Join("testdata", "cross", dir+"_"+base+"."+to+".golden")
}

func TestCrossRequests(t *testing.T) {
	for _, f := range golden.Glob(t, "../anthropic/testdata/requests/*.json") {
		t.Run("anthropic to chat/"+filepath.Base(f), func(t *testing.T) {
			req := readAndDecode(t, f, anthropic.New().DecodeRequest)
			out, err := testCodec().EncodeRequest(req)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, crossName(f, "anthropic-to-chat"), golden.Indent(t, out))
			if _, err := New().DecodeRequest(out); err != nil {
				t.Errorf("translation does not decode: %v", err)
			}
		})
	}
	for _, f := range golden.Glob(t, "testdata/requests/*.json") {
		t.Run("chat to anthropic/"+filepath.Base(f), func(t *testing.T) {
			req := readAndDecode(t, f, New().DecodeRequest)
			out, err := anthropicCodec().EncodeRequest(req)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, crossName(f, "chat-to-anthropic"), golden.Indent(t, out))
			if _, err := anthropic.New().DecodeRequest(out); err != nil {
				t.Errorf("translation does not decode: %v", err)
			}
		})
	}
}

func readAndDecode[T any](t *testing.T, name string, decode func([]byte) (T, error)) T {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := decode(b)
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return v
}

// TestCrossToolIDs follows a tool call and its result through both
// translations: the ids the caller chose must reach the upstream unchanged.
func TestCrossToolIDs(t *testing.T) {
	req := readAndDecode(t, "testdata/requests/tool_loop.json", New().DecodeRequest)
	body, err := anthropic.New().EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	var msgs struct {
		Messages []struct {
			Role    string
			Content []struct {
				Type      string
				ID        string
				ToolUseID string `json:"tool_use_id"`
			}
		}
	}
	if err := json.Unmarshal(body, &msgs); err != nil {
		t.Fatal(err)
	}
	var uses, results []string
	for _, m := range msgs.Messages {
		for _, b := range m.Content {
			switch b.Type {
			case "tool_use":
				uses = append(uses, m.Role+":"+b.ID)
			case "tool_result":
				results = append(results, m.Role+":"+b.ToolUseID)
			}
		}
	}
	if strings.Join(uses, ",") != "assistant:call_abc123,assistant:call_def456" ||
		strings.Join(results, ",") != "user:call_abc123,user:call_def456" {
		t.Errorf("tool_use %v, tool_result %v", uses, results)
	}
	back, err := anthropic.New().DecodeRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	again, err := New().EncodeRequest(back)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{`"id":"call_abc123"`, `"tool_call_id":"call_abc123"`, `"id":"call_def456"`, `"tool_call_id":"call_def456"`} {
		if !bytes.Contains(again, []byte(id)) {
			t.Errorf("%s lost in the way back: %s", id, again)
		}
	}
}

func TestCrossResponses(t *testing.T) {
	for _, f := range golden.Glob(t, "../anthropic/testdata/responses/*.json") {
		t.Run("anthropic to chat/"+filepath.Base(f), func(t *testing.T) {
			r := readAndDecode(t, f, anthropic.New().DecodeResponse)
			out, err := testCodec().EncodeResponse(r)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, crossName(f, "anthropic-to-chat"), golden.Indent(t, out))
		})
	}
	for _, f := range golden.Glob(t, "testdata/responses/*.json") {
		t.Run("chat to anthropic/"+filepath.Base(f), func(t *testing.T) {
			r := readAndDecode(t, f, New().DecodeResponse)
			out, err := anthropicCodec().EncodeResponse(r)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, crossName(f, "chat-to-anthropic"), golden.Indent(t, out))
			back, err := anthropic.New().DecodeResponse(out)
			if err != nil {
				t.Fatal(err)
			}
			if back.Usage.Input+back.Usage.CacheRead != r.Usage.Input+r.Usage.CacheRead || back.StopReason != r.StopReason {
				t.Errorf("usage or stop reason changed: %+v %q -> %+v %q", r.Usage, r.StopReason, back.Usage, back.StopReason)
			}
		})
	}
}

func TestCrossStreams(t *testing.T) {
	for _, f := range golden.Glob(t, "../anthropic/testdata/streams/*.sse") {
		t.Run("anthropic to chat/"+filepath.Base(f), func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			end := pipe(anthropic.New().NewStreamDecoder(bytes.NewReader(in)), testCodec().NewUsageStreamEncoder(&out, true))
			golden.Check(t, crossName(f, "anthropic-to-chat"), append(out.Bytes(), []byte("# end: "+end.Error()+"\n")...))
		})
	}
	for _, f := range golden.Glob(t, "testdata/streams/*.sse") {
		t.Run("chat to anthropic/"+filepath.Base(f), func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			end := pipe(New().NewStreamDecoder(bytes.NewReader(in)), anthropicCodec().NewStreamEncoder(&out))
			golden.Check(t, crossName(f, "chat-to-anthropic"), append(out.Bytes(), []byte("# end: "+end.Error()+"\n")...))
		})
	}
}

// pipe copies events from d to e and returns how the stream ended.
func pipe(d llm.StreamDecoder, e llm.StreamEncoder) error {
	for {
		ev, err := d.Next()
		if err != nil {
			if err == io.EOF {
				return io.EOF
			}
			return err
		}
		ev.Raw = nil
		if err := e.Encode(ev); err != nil {
			return err
		}
	}
}

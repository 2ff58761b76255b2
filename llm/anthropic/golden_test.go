package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

// testCodec returns a codec whose generated ids count up.
func testCodec() *Codec {
	n := 0
	return &Codec{NewID: func(prefix string) string {
		n++
		return fmt.Sprintf("%sgen%d", prefix, n)
	}}
}

// dump renders v as indented JSON without its empty members ("", false,
// null, [] and {}), so goldens show what is set.
func dump(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		t.Fatal(err)
	}
	b, err = json.MarshalIndent(prune(tree), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func prune(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			e = prune(e)
			if isEmpty(e) {
				delete(x, k)
			} else {
				x[k] = e
			}
		}
	case []any:
		for i, e := range x {
			x[i] = prune(e)
		}
	}
	return v
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// normalizeRequest compacts the JSON text a round trip may re-space.
func normalizeRequest(r *llm.Request) *llm.Request {
	cp := *r
	cp.Messages = make([]llm.Message, len(r.Messages))
	for i, m := range r.Messages {
		m.Content = normalizeParts(m.Content)
		cp.Messages[i] = m
	}
	cp.Tools = make([]llm.Tool, len(r.Tools))
	for i, tool := range r.Tools {
		tool.Parameters = compact(tool.Parameters)
		cp.Tools[i] = tool
	}
	return &cp
}

func normalizeParts(ps []llm.Part) []llm.Part {
	out := make([]llm.Part, len(ps))
	for i, p := range ps {
		if p.Arguments != "" {
			p.Arguments = string(compact([]byte(p.Arguments)))
		}
		p.Result = normalizeParts(p.Result)
		out[i] = p
	}
	return out
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}

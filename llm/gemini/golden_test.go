package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

// canonical renders a canonical value as indented JSON without its zero
// fields, so goldens show only what a codec set.
func canonical(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(prune(generic)); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// prune drops zero values from decoded JSON.
func prune(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if p := prune(e); p != nil {
				out[k] = p
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			p := prune(e)
			if p == nil {
				p = map[string]any{}
			}
			out = append(out, p)
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case string:
		if x == "" {
			return nil
		}
	case float64:
		if x == 0 {
			return nil
		}
	case bool:
		if !x {
			return nil
		}
	}
	return v
}

// eventView is an event as a golden file shows it (Raw as text).
type eventView struct {
	llm.Event
	Raw string
}

// dumpEvents renders events one JSON object per line, without Raw.
func dumpEvents(t *testing.T, events []llm.Event) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, e := range events {
		e.Raw = nil
		b, err := json.Marshal(eventView{Event: e})
		if err != nil {
			t.Fatal(err)
		}
		var generic any
		_ = json.Unmarshal(b, &generic)
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(prune(generic)); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

func ptr[T any](v T) *T { return &v }

// collect reads a decoder to its end.
func collect(d llm.StreamDecoder) ([]llm.Event, error) {
	var out []llm.Event
	for {
		e, err := d.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
		if len(out) > 100000 {
			return out, errors.New("decoder does not end")
		}
	}
}

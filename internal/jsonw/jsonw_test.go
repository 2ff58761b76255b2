package jsonw

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"math"
	"strings"
	"testing"
)

// marshalString is s as encoding/json writes it with HTML escaping off.
func marshalString(t *testing.T, s string) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// slogString is s as slog's JSON handler writes a string attribute.
func slogString(t *testing.T, s string) string {
	t.Helper()
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key != "v" {
				return slog.Attr{}
			}
			return a
		},
	})).Info("", "v", s)
	out := strings.TrimSuffix(buf.String(), "\n")
	return strings.TrimSuffix(strings.TrimPrefix(out, `{"v":`), "}")
}

var stringSeeds = []string{
	"", "plain", `quote " and \ backslash`, "<b> & </b>", "tab\tnew\nline\rret", "\b\f\x00\x01\x1f\x7f",
	"café 世界 😀", "\u2028\u2029", "bad \xff utf-8 \xc3", "\xed\xa0\x80 surrogate bytes", "\ufffd",
}

func TestAppendMarshalString(t *testing.T) {
	for _, s := range stringSeeds {
		if got, want := string(AppendMarshalString([]byte("x"), s)), "x"+marshalString(t, s); got != want {
			t.Errorf("AppendMarshalString(%q) = %s, encoding/json writes %s", s, got, want)
		}
	}
	// Where the two escapings differ.
	if got := string(AppendMarshalString(nil, "\b\f")); got != `"\b\f"` {
		t.Errorf("AppendMarshalString(\\b\\f) = %s", got)
	}
	if got := string(AppendString(nil, "\b\f")); got != `"\u0008\u000c"` {
		t.Errorf("AppendString(\\b\\f) = %s", got)
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range stringSeeds {
		if got, want := string(AppendString(nil, s)), slogString(t, s); got != want {
			t.Errorf("AppendString(%q) = %s, slog writes %s", s, got, want)
		}
	}
}

func TestAppendFloat(t *testing.T) {
	for _, f := range []float64{0, 1, -1.5, 1e-7, 123456789, 1e21, 1e20, 3.14159, math.SmallestNonzeroFloat64, math.MaxFloat64} {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendFloat(nil, f); string(got) != string(want) {
			t.Errorf("AppendFloat(%v) = %s, encoding/json writes %s", f, got, want)
		}
	}
	if got := string(AppendFloat(nil, math.NaN())); got != "null" {
		t.Errorf("AppendFloat(NaN) = %s", got)
	}
}

// FuzzAppendMarshalString compares AppendMarshalString with encoding/json,
// and AppendString with slog, on arbitrary strings.
func FuzzAppendMarshalString(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(AppendMarshalString(nil, s)), marshalString(t, s); got != want {
			t.Fatalf("AppendMarshalString(%q) = %s, encoding/json writes %s", s, got, want)
		}
		if got, want := string(AppendString(nil, s)), slogString(t, s); got != want {
			t.Fatalf("AppendString(%q) = %s, slog writes %s", s, got, want)
		}
	})
}

package analytics

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fillRandom sets every field of the struct v points to: strings from
// texts, numbers and bools at random, times in a random zone. A field of
// another kind fails the test (the encoder would not know it either).
func fillRandom(t *testing.T, rng *rand.Rand, v any, texts []string) {
	t.Helper()
	rv := reflect.ValueOf(v).Elem()
	for i := range rv.NumField() {
		f := rv.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(texts[rng.IntN(len(texts))])
		case reflect.Int, reflect.Int64:
			f.SetInt(rng.Int64N(1<<40) - 1<<39)
		case reflect.Float64:
			f.SetFloat([]float64{0, 1.5, -2.25e-9, 1e21, 123456.789, math.SmallestNonzeroFloat64, math.MaxFloat64, rng.Float64() * 1e4}[rng.IntN(8)])
		case reflect.Bool:
			f.SetBool(rng.IntN(2) == 1)
		case reflect.Struct:
			if f.Type() != reflect.TypeFor[time.Time]() {
				t.Fatalf("field %s: unexpected type %s", rv.Type().Field(i).Name, f.Type())
			}
			zone := time.FixedZone("z", (rng.IntN(27)-13)*3600+rng.IntN(2)*1800)
			f.Set(reflect.ValueOf(time.Unix(rng.Int64N(4e9), rng.Int64N(1e9)).In(zone)))
		default:
			t.Fatalf("field %s: unexpected kind %s", rv.Type().Field(i).Name, f.Kind())
		}
	}
}

// TestBatchJSONDecodesAsMarshal: the hand-written journal encoding of
// batches with every field set (quotes, backslashes, control characters,
// invalid UTF-8, HTML characters, U+2028, emoji; extreme floats; times in
// odd zones) decodes to exactly what json.Marshal's encoding decodes to,
// and it fails where json.Marshal fails (NaN, infinities, year 10000).
func TestBatchJSONDecodesAsMarshal(t *testing.T) {
	texts := []string{"", "plain", `q"uo\te`, "ctl\x00\x01\x1f\n\r\t", "bad\xff\xfeutf8", "<a>&amp;</a>",
		"line\u2028sep\u2029", "日本語 🚀", strings.Repeat("x", 300)}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		var bt batch
		for range rng.IntN(4) {
			var a Attempt
			fillRandom(t, rng, &a, texts)
			bt.Attempts = append(bt.Attempts, a)
		}
		for range rng.IntN(4) {
			var r Request
			fillRandom(t, rng, &r, texts)
			bt.Requests = append(bt.Requests, r)
		}
		want, err := json.Marshal(&bt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendBatchJSON([]byte("prefix"), &bt)
		if err != nil || !strings.HasPrefix(string(got), "prefix") {
			t.Fatalf("round %d: %q, %v", round, got, err)
		}
		var dw, dg batch
		if err := json.Unmarshal(want, &dw); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got[len("prefix"):], &dg); err != nil {
			t.Fatalf("round %d: own encoding does not decode: %v\n%s", round, err, got)
		}
		if !reflect.DeepEqual(dw, dg) {
			t.Fatalf("round %d: decodes differ\njson.Marshal: %s\nown:          %s", round, want, got[len("prefix"):])
		}
	}

	for _, bad := range []batch{
		{Attempts: []Attempt{{LatencyMs: math.NaN()}}},
		{Requests: []Request{{TTFBMs: math.Inf(1)}}},
		{Requests: []Request{{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}},
	} {
		_, werr := json.Marshal(&bad)
		_, gerr := appendBatchJSON(nil, &bad)
		if werr == nil || gerr == nil {
			t.Errorf("%+v: json.Marshal error %v, own error %v; want both to fail", bad, werr, gerr)
		}
	}
}

// BenchmarkEncodeFrame: one journal group of 16 rows (8 attempts, 8
// requests), as the batcher writes it at load, into a reused buffer.
func BenchmarkEncodeFrame(b *testing.B) {
	t := &testing.T{}
	rng := rand.New(rand.NewPCG(3, 4))
	texts := []string{"org_01H", "key_01J", "gpt-5-nano", "openai", "served", "", "chat.completions"}
	var bt batch
	for range 8 {
		var a Attempt
		fillRandom(t, rng, &a, texts)
		bt.Attempts = append(bt.Attempts, a)
		var r Request
		fillRandom(t, rng, &r, texts)
		bt.Requests = append(bt.Requests, r)
	}
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		var err error
		if buf, err = appendFrame(buf[:0], &bt); err != nil {
			b.Fatal(err)
		}
	}
}

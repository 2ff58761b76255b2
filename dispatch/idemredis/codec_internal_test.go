package idemredis

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
)

// fill sets every field reachable from v to a distinct non-zero value, so a
// field the codec forgets (or one added to dispatch or llm later) breaks the
// round trip.
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString("s" + string(rune('a'+*n%26)) + time.Duration(*n).String())
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), n)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(`{"raw":true}`))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			if v.Type() == reflect.TypeOf([]llm.Part(nil)) && *n > 200 {
				continue // bound the recursion of nested tool results
			}
			fill(v.Index(i), n)
		}
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}

func TestResultRoundTrip(t *testing.T) {
	var full dispatch.Result
	n := 0
	fill(reflect.ValueOf(&full).Elem(), &n)
	if len(full.Response.Content[0].Result) == 0 || full.TTFB == 0 || full.Served.Format == "" {
		t.Fatalf("filler left fields empty: %+v", full)
	}
	tests := []struct {
		name string
		res  dispatch.Result
	}{
		{"every field set", full},
		{"zero result", dispatch.Result{}},
		{"no response, raw body only", dispatch.Result{RawBody: []byte("{}"), Attempts: 1, TTFB: time.Millisecond}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := encodeResult(&tc.res)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeResult(b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tc.res) {
				t.Fatalf("round trip:\n got %+v\nwant %+v", *got, tc.res)
			}
		})
	}
}

func TestDecodeResultRejects(t *testing.T) {
	for name, in := range map[string]string{
		"not json":      "{",
		"other version": `{"v":2}`,
		"no version":    `{}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := decodeResult([]byte(in)); !errors.Is(err, ErrBadRecord) {
				t.Fatalf("err = %v, want ErrBadRecord", err)
			}
		})
	}
}

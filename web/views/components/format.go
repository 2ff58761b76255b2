// Package components holds the console's small reusable views (Props
// structs, children slots) and the formatting helpers the pages share.
//
// Ring: presentation. No I/O: components only render what they are given.
package components

import (
	"strconv"
	"strings"
	"time"
)

// USD formats integer micro-dollars as dollars: two decimals from $1, six
// below a cent and four in between, so small costs stay visible. Negative
// amounts keep their sign ("-$0.0012").
func USD(micros int64) string {
	sign := ""
	if micros < 0 {
		sign, micros = "-", -micros
	}
	d := float64(micros) / 1e6
	switch {
	case micros == 0:
		return "$0.00"
	case micros >= 1_000_000:
		return sign + "$" + strconv.FormatFloat(d, 'f', 2, 64)
	case micros < 10_000:
		return sign + "$" + strconv.FormatFloat(d, 'f', 6, 64)
	}
	return sign + "$" + strconv.FormatFloat(d, 'f', 4, 64)
}

// Percent formats a rate in [0, 1] as a percentage with one decimal.
func Percent(rate float64) string {
	return strconv.FormatFloat(rate*100, 'f', 1, 64) + "%"
}

// Millis formats a latency in milliseconds ("-" for zero, which the
// analytics stores use for "not measured").
func Millis(ms float64) string {
	if ms <= 0 {
		return "-"
	}
	if ms >= 10_000 {
		return strconv.FormatFloat(ms/1000, 'f', 1, 64) + " s"
	}
	return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
}

// Int formats a count with thin thousands separators.
func Int(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Time formats a time in UTC to the second ("-" for the zero time).
func Time(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05") + " UTC"
}

// TimePtr is Time for an optional time ("never" when nil).
func TimePtr(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return Time(*t)
}

// Status formats an HTTP status ("-" when none).
func Status(code int) string {
	if code == 0 {
		return "-"
	}
	return strconv.Itoa(code)
}

// Or returns s, or alt when s is empty.
func Or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// SignClass is the CSS class of an amount whose sign matters: "neg" below
// zero, "pos" above, "" at zero.
func SignClass(v int64) string {
	switch {
	case v < 0:
		return "neg"
	case v > 0:
		return "pos"
	}
	return ""
}

func presetClass(cur, key string) string {
	if cur == key {
		return "button small"
	}
	return "button small secondary"
}

package components

import (
	"context"
	"strings"
	"testing"
)

func TestUSD(t *testing.T) {
	for _, tc := range []struct {
		micros int64
		want   string
	}{
		{0, "$0.00"},
		{1, "$0.000001"},
		{9_999, "$0.009999"},
		{10_000, "$0.0100"},
		{123_456, "$0.1235"},
		{1_000_000, "$1.00"},
		{25_500_000, "$25.50"},
		{-1_000, "-$0.001000"},
		{-2_500_000, "-$2.50"},
	} {
		if got := USD(tc.micros); got != tc.want {
			t.Errorf("USD(%d) = %q, want %q", tc.micros, got, tc.want)
		}
	}
}

func TestNumbers(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Int(0), "0"}, {Int(999), "999"}, {Int(1000), "1,000"}, {Int(1234567), "1,234,567"}, {Int(-4500), "-4,500"},
		{Percent(0), "0.0%"}, {Percent(1.0 / 3), "33.3%"}, {Percent(1), "100.0%"},
		{Millis(0), "-"}, {Millis(12.4), "12 ms"}, {Millis(15_000), "15.0 s"},
		{Status(0), "-"}, {Status(502), "502"},
		{SignClass(-1), "neg"}, {SignClass(0), ""}, {SignClass(1), "pos"},
		{TimePtr(nil), "never"}, {Or("", "x"), "x"}, {Or("y", "x"), "y"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestBarChart(t *testing.T) {
	bars := []ChartBar{{Label: "11-28", Spend: 4000, Savings: 1000}, {Label: "11-29", Spend: 1000, Savings: -2000}}
	var b strings.Builder
	if err := BarChart(ChartProps{Bars: bars, TestID: "c"}).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	for _, want := range []string{
		`data-testid="c"`, `data-testid="chart-day-11-28"`, `class="bar-negative"`, `class="bar-savings"`,
		"11-29: spend $0.001000, savings -$0.002000",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	if strings.Contains(svg, "style=") {
		t.Error("the chart uses inline styles, which the CSP refuses")
	}
	// The tallest bar spans the space above the zero line; a negative bar
	// hangs below it and stays inside the drawing.
	zero := chartZero(bars)
	if y, h := barGeom(bars, 4000); y != itoa(chartTop) || h != itoa(zero-chartTop) {
		t.Errorf("max bar y=%s h=%s, zero %d", y, h, zero)
	}
	if y, h := barGeom(bars, -2000); y != itoa(zero) || h != itoa((chartHeight-chartBottom-zero)/2) {
		t.Errorf("negative bar y=%s h=%s", y, h)
	}
}

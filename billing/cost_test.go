package billing

import (
	"testing"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/llm"
)

func TestCost(t *testing.T) {
	sonnet := catalog.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	tests := []struct {
		name string
		u    llm.Usage
		p    catalog.Price
		want Micros
	}{
		{"zero", llm.Usage{}, sonnet, 0},
		{"input only", llm.Usage{Input: 1000}, sonnet, 3000},
		{"output only", llm.Usage{Output: 1000}, sonnet, 15000},
		{"cache read and write", llm.Usage{CacheRead: 10000, CacheWrite: 2000}, sonnet, 3000 + 7500},
		{"all", llm.Usage{Input: 100, Output: 50, CacheRead: 1000, CacheWrite: 10, Reasoning: 20}, sonnet, 300 + 750 + 300 + 38},
		{"sub-micro rounds half up", llm.Usage{Input: 1}, catalog.Price{Input: 0.5}, 1},
		{"sub-micro rounds down", llm.Usage{Input: 1}, catalog.Price{Input: 0.4}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Cost(tt.u, tt.p); got != tt.want {
				t.Fatalf("Cost = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestCompareNegativeSavingsKept(t *testing.T) {
	u := llm.Usage{Input: 1000, Output: 1000}
	cheap := catalog.Price{Input: 1, Output: 5}
	dear := catalog.Price{Input: 3, Output: 15}
	s := Compare(u, cheap, dear)
	if s.Actual != 6000 || s.Baseline != 18000 || s.Saved != 12000 {
		t.Fatalf("cheap vs dear = %+v", s)
	}
	s = Compare(u, dear, cheap)
	if s.Saved != -12000 {
		t.Fatalf("dear vs cheap saved = %d, want -12000 (negative savings are reported)", s.Saved)
	}
}

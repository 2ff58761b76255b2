package analytics

import (
	"reflect"
	"strings"
	"testing"
)

func TestJoinTags(t *testing.T) {
	many := make([]string, 20)
	for i := range many {
		many[i] = string(rune('a' + i))
	}
	tests := []struct {
		name  string
		lists [][]string
		want  string
	}{
		{"none", nil, ""},
		{"sorted and deduplicated across lists", [][]string{{"team:search", "CI"}, {" ci ", "batch"}}, "batch,ci,team:search"},
		{"invalid dropped", [][]string{{"ok", "has space", "", "x,y", strings.Repeat("a", MaxTagLen+1)}}, "ok"},
		{"capped", [][]string{many}, strings.Join(many[:MaxTags], ",")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := JoinTags(tt.lists...)
			if got != tt.want {
				t.Fatalf("JoinTags = %q, want %q", got, tt.want)
			}
			if back := strings.Join(SplitTags(got), ","); back != got {
				t.Fatalf("SplitTags round trip = %q", back)
			}
		})
	}
}

func TestCandidates(t *testing.T) {
	s := FormatCandidates([]Candidate{{"gpt-5-mini", 0.5}, {"claude-opus", 0.9123}, {"org/model=x", 0.7}})
	if want := "claude-opus=0.912 org/model=x=0.700 gpt-5-mini=0.500"; s != want {
		t.Fatalf("FormatCandidates = %q, want %q", s, want)
	}
	got := ParseCandidates(s + " broken =1 x=notanumber")
	want := []Candidate{{"claude-opus", 0.912}, {"org/model=x", 0.7}, {"gpt-5-mini", 0.5}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseCandidates = %+v, want %+v", got, want)
	}
}

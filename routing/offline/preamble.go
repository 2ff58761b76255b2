package offline

import (
	"cmp"
	"slices"
	"strings"

	"github.com/heddle-gw/heddle/routing"
)

// Preamble learning thresholds: a preamble is a prefix of at least
// MinPreambleBytes, ending at a line break, that at least
// max(MinPreambleShare of the prompts, MinPreambleCount) training prompts
// start with. A shared template that long carries nothing about any one
// question; a shared opening sentence is shorter and stays.
const (
	MinPreambleBytes = 128
	MinPreambleShare = 0.05
	MinPreambleCount = 10
)

// learnPreambles returns the preambles of prompts (Bundle.Preambles):
// prefixes ending at a line break, at least MinPreambleBytes long, that
// enough prompts start with (see the constants), longest first, at most
// routing.MaxPreambles (those that the most prompts strip kept). It works on
// any data: it looks only at which prefixes the prompts share.
func learnPreambles(prompts []string) []string {
	need := max(MinPreambleCount, int(MinPreambleShare*float64(len(prompts))+0.999999))
	if len(prompts) < need {
		return nil
	}
	sorted := slices.Clone(prompts)
	slices.Sort(sorted)
	// In sorted order the prompts that share a prefix are contiguous, and
	// the longest prefix a run of need prompts shares is the common prefix
	// of its first and last.
	seen := map[string]bool{}
	var cands []string
	for i := 0; i+need <= len(sorted); i++ {
		a, z := sorted[i], sorted[i+need-1]
		n := commonPrefix(a, z)
		n = strings.LastIndexByte(a[:n], '\n') + 1
		if n < MinPreambleBytes || n > routing.MaxPreambleBytes || seen[a[:n]] || strings.TrimSpace(a[:n]) == "" {
			continue
		}
		seen[a[:n]] = true
		cands = append(cands, a[:n])
	}
	if len(cands) == 0 {
		return nil
	}
	byLen := func(x, y string) int {
		if c := cmp.Compare(len(y), len(x)); c != 0 {
			return c
		}
		return strings.Compare(x, y)
	}
	slices.SortFunc(cands, byLen)
	// Keep the preambles that the most prompts strip (their longest match,
	// leaving text after it), each stripping at least need prompts.
	uses := make(map[string]int, len(cands))
	for _, p := range prompts {
		for _, c := range cands {
			if rest, ok := strings.CutPrefix(p, c); ok && strings.TrimSpace(rest) != "" {
				uses[c]++
				break
			}
		}
	}
	var kept []string
	for _, c := range cands {
		if uses[c] >= need {
			kept = append(kept, c)
		}
	}
	if len(kept) > routing.MaxPreambles {
		slices.SortStableFunc(kept, func(x, y string) int { return cmp.Compare(uses[y], uses[x]) })
		kept = kept[:routing.MaxPreambles]
		slices.SortFunc(kept, byLen)
	}
	return kept
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// queryTexts is what the router embeds for each sample's prompt under the
// preambles pre (routing.QueryText), maxBytes as the router's config.
func queryTexts(pre []string, samples []Sample, maxBytes int) []string {
	out := make([]string, len(samples))
	for i, s := range samples {
		out[i] = routing.QueryText(pre, s.Prompt, maxBytes)
	}
	return out
}

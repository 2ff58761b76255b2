package analytics

import (
	"sort"
	"strconv"
	"strings"
)

// Tag limits: a request keeps at most MaxTags tags of at most MaxTagLen
// bytes each.
const (
	MaxTags   = 16
	MaxTagLen = 64
)

// NormTag returns tag lower-cased and trimmed, or "" when it is not a valid
// tag: 1 to MaxTagLen bytes of letters, digits, '-', '_', '.', ':' or '/'.
func NormTag(tag string) string {
	t := strings.ToLower(strings.TrimSpace(tag))
	if t == "" || len(t) > MaxTagLen {
		return ""
	}
	for _, c := range t {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.:/", c)
		if !ok {
			return ""
		}
	}
	return t
}

// JoinTags returns the valid tags of every list (see NormTag), deduplicated
// and sorted, joined by commas and capped at MaxTags: the form
// Request.Tags is stored in. Invalid tags are dropped.
func JoinTags(lists ...[]string) string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lists {
		for _, t := range l {
			if t = NormTag(t); t != "" && !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	sort.Strings(out)
	if len(out) > MaxTags {
		out = out[:MaxTags]
	}
	return strings.Join(out, ",")
}

// SplitTags is the inverse of JoinTags; nil for "".
func SplitTags(tags string) []string {
	if tags == "" {
		return nil
	}
	return strings.Split(tags, ",")
}

// ExpandTags turns rows grouped by a request's whole Tags value into rows
// of DimTag: one per tag, a request counted under each of its tags, and
// requests without tags under "", with the means of latency weighted by
// requests. Rows come back ordered as SortBreakdown.
func ExpandTags(rows []BreakdownRow) []BreakdownRow {
	byTag := map[string]*BreakdownRow{}
	lat := map[string]float64{}
	for _, r := range rows {
		tags := SplitTags(r.Key)
		if len(tags) == 0 {
			tags = []string{""}
		}
		for _, t := range tags {
			a, ok := byTag[t]
			if !ok {
				a = &BreakdownRow{Key: t}
				byTag[t] = a
			}
			a.Requests += r.Requests
			a.Errors += r.Errors
			a.CacheHits += r.CacheHits
			a.Attempts += r.Attempts
			a.InputTokens += r.InputTokens
			a.OutputTokens += r.OutputTokens
			a.CostMicros += r.CostMicros
			a.BaselineMicros += r.BaselineMicros
			a.SavingsMicros += r.SavingsMicros
			lat[t] += r.LatencyMeanMs * float64(r.Requests)
		}
	}
	out := make([]BreakdownRow, 0, len(byTag))
	for t, r := range byTag {
		if r.Requests > 0 {
			r.LatencyMeanMs = lat[t] / float64(r.Requests)
		}
		out = append(out, *r)
	}
	SortBreakdown(out, DimTag)
	return out
}

// Candidate is one model the router scored for a request.
type Candidate struct {
	Model string
	Score float64
}

// FormatCandidates writes scores as Request.Candidates: "model=score"
// pairs, best first, separated by spaces.
func FormatCandidates(cs []Candidate) string {
	cs = append([]Candidate(nil), cs...)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Score > cs[j].Score })
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Model + "=" + strconv.FormatFloat(c.Score, 'f', 3, 64)
	}
	return strings.Join(parts, " ")
}

// ParseCandidates reads Request.Candidates; pairs that do not parse are
// left out.
func ParseCandidates(s string) []Candidate {
	var out []Candidate
	for _, f := range strings.Fields(s) {
		i := strings.LastIndexByte(f, '=')
		if i <= 0 {
			continue
		}
		v, err := strconv.ParseFloat(f[i+1:], 64)
		if err != nil {
			continue
		}
		out = append(out, Candidate{Model: f[:i], Score: v})
	}
	return out
}

package routing

import (
	"math"
	"testing"
)

func TestQueryFeaturesOptions(t *testing.T) {
	var f [QueryFeatureCount]float64
	q := "Which gas do plants not release at night?\nA) oxygen gas\n(B) carbon dioxide gas\nC. water vapour\n\nAnswer:"
	QueryFeatures(q, TurnMain, &f)
	if f[15] != math.Log1p(3) {
		t.Errorf("options = %v, want ln 4", f[15])
	}
	if f[17] != math.Log1p(7.0/3) {
		t.Errorf("words per option = %v, want ln(1+7/3)", f[17])
	}
	if f[18] != math.Log1p(8) {
		t.Errorf("stem words = %v, want ln 9", f[18])
	}
	if f[19] != math.Log1p(1) {
		t.Errorf("negations = %v, want ln 2", f[19])
	}
	// Options sharing "gas" are alike; the same question with unrelated
	// options is less so.
	alike := f[16]
	QueryFeatures("Which gas do plants not release at night?\nA) oxygen\n(B) carbon dioxide\nC. water vapour\n\nAnswer:", TurnMain, &f)
	if !(alike > f[16] && f[16] >= 0 && alike <= 1) {
		t.Errorf("option similarity %v with a shared word, %v without", alike, f[16])
	}
	// One labelled line is not a choice: no options, every word is stem.
	QueryFeatures("Explain this:\n1. the first step isn't clear", TurnMain, &f)
	if f[15] != 0 || f[16] != 0 || f[17] != 0 || f[18] != math.Log1p(7) || f[19] != math.Log1p(1) {
		t.Errorf("single numbered line: options %v similarity %v per option %v stem %v negations %v", f[15], f[16], f[17], f[18], f[19])
	}
	QueryFeatures("Internationalisation of a big app", TurnMain, &f)
	if f[20] != 0.2 {
		t.Errorf("long-word share = %v, want 1/5", f[20])
	}
}

func TestQueryFeaturesNoAllocation(t *testing.T) {
	var f [QueryFeatureCount]float64
	q := "Ünïcode question: which is not right?\nA) naïve café\nB) résumé\n"
	if n := testing.AllocsPerRun(100, func() { QueryFeatures(q, TurnMain, &f) }); n != 0 {
		t.Errorf("QueryFeatures allocates %v times", n)
	}
}

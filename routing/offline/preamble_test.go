package offline

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/lexical"
)

// templated: n prompts of one task behind a shared few-shot template, n of
// another behind a second template, and n bare questions that share only a
// short opening.
func templated(n int) (samples []Sample, a, b string) {
	a = strings.Repeat("Q: What is the capital of France?\nA: Paris\n\n", 4)
	b = strings.Repeat("Sentence: The cup fell because _ was slippery.\nAnswer: the cup\n\n", 3)
	for i := range n {
		samples = append(samples,
			Sample{ID: fmt.Sprint("a", i), Prompt: a + fmt.Sprintf("Q: What is %d plus %d?\nA:", i, 3*i)},
			Sample{ID: fmt.Sprint("b", i), Prompt: b + fmt.Sprintf("Sentence: Kim lent Lee %d books because _ was generous.\nAnswer:", i)},
			Sample{ID: fmt.Sprint("c", i), Prompt: fmt.Sprintf("Please write a poem about the number %d and the sea.", i)})
	}
	for i := range samples {
		samples[i].Task = samples[i].ID[:1]
		samples[i].Quality = map[string]float64{"A": 1, "B": float64(i % 2)}
		samples[i].Cost = map[string]float64{"A": 1, "B": 0.1}
	}
	return samples, a, b
}

// TestLearnPreambles: the two templates are learned (cut at their last line
// break, longest first) and the bare questions' short shared opening is not;
// too few prompts, or a template shared by too few of them, give none.
func TestLearnPreambles(t *testing.T) {
	samples, a, b := templated(20)
	prompts := make([]string, len(samples))
	for i, s := range samples {
		prompts[i] = s.Prompt
	}
	got := learnPreambles(prompts)
	if want := []string{b, a}; !slices.Equal(got, want) {
		t.Fatalf("preambles %q, want %q", got, want)
	}
	if got := learnPreambles(prompts[:9]); got != nil {
		t.Errorf("9 prompts gave preambles %q", got)
	}
	// One templated prompt in 30 is below MinPreambleShare and MinPreambleCount.
	few := append([]string{a + "Q: x?\nA:"}, prompts[2:][:0]...)
	for i := range 29 {
		few = append(few, fmt.Sprintf("Question %d about something else entirely?", i))
	}
	if got := learnPreambles(few); got != nil {
		t.Errorf("a rare template was learned: %q", got)
	}
	texts := queryTexts(got, samples[:3], 0)
	if texts[0] != "Q: What is 0 plus 0?\nA:" || !strings.HasPrefix(texts[1], "Sentence: Kim") || texts[2] != samples[2].Prompt {
		t.Errorf("query texts %q", texts)
	}
}

// TestTrainLearnsPreambles: Train stores the templates in the bundle and
// embeds what the router embeds, so a bundle's evaluation and its routing
// of the same prompt agree.
func TestTrainLearnsPreambles(t *testing.T) {
	samples, a, b := templated(20)
	emb, err := lexical.New(lexical.Params{Dim: 256, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	bundle, err := Train(context.Background(), TrainConfig{K: 3, Seed: 1, Restarts: 1, Scorer: routing.ScorerPredictor}, samples, emb)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(bundle.Preambles, []string{b, a}) {
		t.Fatalf("bundle preambles %q", bundle.Preambles)
	}
	var buf strings.Builder
	if err := bundle.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := routing.LoadBundle(strings.NewReader(buf.String()))
	if err != nil || !slices.Equal(loaded.Preambles, bundle.Preambles) {
		t.Fatalf("round trip: %v %q", err, loaded.Preambles)
	}
	live, err := routing.BundleEmbedder(loaded, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := routing.NewRouter(loaded, live, routing.Config{})
	if err != nil {
		t.Fatal(err)
	}
	texts := queryTexts(loaded.Preambles, samples, 0)
	vecs, err := embedAll(context.Background(), live, texts, nil)
	if err != nil {
		t.Fatal(err)
	}
	feats := featuresOf(texts, samples)
	for i, s := range samples[:12] {
		for _, alpha := range []float64{0.2, 0.5, 0.8} {
			d, err := r.Decide(context.Background(), routing.Query{Text: s.Prompt, Alpha: alpha, Eligible: loaded.Models})
			if err != nil {
				t.Fatal(err)
			}
			if want := loaded.Models[r.ChooseVec(vecs[i], feats[i], alpha, []int{0, 1})]; d.Model != want {
				t.Errorf("%s at %v: routed to %s, evaluated as %s", s.ID, alpha, d.Model, want)
			}
		}
	}
}

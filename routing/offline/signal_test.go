package offline

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/routing/lexical"
)

func TestRocAUC(t *testing.T) {
	for _, c := range []struct {
		name         string
		score, truth []float64
		want         float64
	}{
		{"perfect", []float64{0.1, 0.2, 0.8, 0.9}, []float64{0, 0, 1, 1}, 1},
		{"reversed", []float64{0.9, 0.8, 0.2, 0.1}, []float64{0, 0, 1, 1}, 0},
		{"all tied", []float64{0.5, 0.5, 0.5, 0.5}, []float64{0, 1, 0, 1}, 0.5},
		// Pairs (pos, neg): (0.4 vs 0.3) win, (0.4 vs 0.6) lose, (0.7 vs 0.3)
		// win, (0.7 vs 0.6) win: 3/4.
		{"three of four pairs", []float64{0.3, 0.4, 0.6, 0.7}, []float64{0, 1, 0, 1}, 0.75},
	} {
		if got := rocAUC(c.score, c.truth); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: AUC %v, want %v", c.name, got, c.want)
		}
	}
	if got := rocAUC([]float64{1, 2}, []float64{1, 1}); !math.IsNaN(got) {
		t.Errorf("no negatives: %v, want NaN", got)
	}
}

// TestQuerySignal: when the words of a query tell whether a model gets it
// right, the signal is near 1; when correctness is unrelated to the words,
// it is near 0.5.
func TestQuerySignal(t *testing.T) {
	var samples []Sample
	for i := range 80 {
		hard := i%2 == 0
		topic := "arithmetic with small numbers and sums"
		if hard {
			topic = "quantum chromodynamics lattice gauge theory"
		}
		q := map[string]float64{"weak": 1, "noise": float64((i / 2) % 2)}
		if hard {
			q["weak"] = 0
		}
		samples = append(samples, Sample{
			Prompt: fmt.Sprintf("question %d about %s", i, topic), Task: "t",
			Quality: q, Cost: map[string]float64{"weak": 1, "noise": 1},
		})
	}
	emb, err := lexical.New(lexical.Params{Dim: 256, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := QuerySignal(context.Background(), emb, nil, samples, []string{"weak", "noise"}, []int{5})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Model != "weak" || rows[0].N != 80 {
		t.Fatalf("rows %+v", rows)
	}
	if rows[0].AUC < 0.95 {
		t.Errorf("topic-driven correctness: AUC %.3f, want near 1", rows[0].AUC)
	}
	if math.Abs(rows[1].AUC-0.5) > 0.2 {
		t.Errorf("correctness unrelated to the words: AUC %.3f, want near 0.5", rows[1].AUC)
	}
	var out bytes.Buffer
	if err := WriteSignal(&out, rows, []int{5}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| t | weak | 80 |") {
		t.Errorf("table:\n%s", out.String())
	}
}

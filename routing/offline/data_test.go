package offline

import (
	"errors"
	"github.com/heddle-gw/heddle/routing"
	"slices"
	"strings"
	"testing"
)

func TestParsePyStrList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`['hello']`, []string{"hello"}},
		{`["it's"]`, []string{"it's"}},
		{`['a\nb', "c"]`, []string{"a\nb", "c"}},
		{`['don\'t \\ "x"']`, []string{`don't \ "x"`}},
		{`['caf\xe9 \u65e5']`, []string{"café 日"}},
		{`[]`, nil},
	} {
		got, err := parsePyStrList(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("parsePyStrList(%s) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`'x'`, `['x'`, `['x' 'y']`, `[x]`, `['\x4']`} {
		if _, err := parsePyStrList(bad); !errors.Is(err, routing.ErrData) {
			t.Errorf("parsePyStrList(%s): err %v, want ErrData", bad, err)
		}
	}
}

const rbCSV = `,sample_id,prompt,eval_name,m1,m2,m1|model_response,m1|total_cost,m2|total_cost,oracle_model_to_route_to
0,s1,"['Few shot example\nAnswer:\nA\n\nReal question?\nA) x\nB) y\nAnswer:']",arc,1.0,0.0,['A'],0.002,0.0001,m1
1,s2,"['Write a function to add two numbers.']",mbpp,0.0,1.0,['x'],0.003,0.0002,m2
2,s1,"['duplicate of s1']",arc,1.0,1.0,['A'],0.002,0.0001,m1
3,s3,"['incomplete row']",arc,1.0,,['A'],0.002,0.0001,m1
`

func TestReadRouterBench(t *testing.T) {
	s, err := ReadRouterBench(strings.NewReader(rbCSV), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 {
		t.Fatalf("%d samples, want 2 (duplicate and incomplete rows dropped)", len(s))
	}
	want := []Sample{
		{ID: "s1", Task: "arc", Prompt: "Real question?\nA) x\nB) y\nAnswer:", Quality: map[string]float64{"m1": 1, "m2": 0}, Cost: map[string]float64{"m1": 0.002, "m2": 0.0001}},
		{ID: "s2", Task: "mbpp", Prompt: "Write a function to add two numbers.", Quality: map[string]float64{"m1": 0, "m2": 1}, Cost: map[string]float64{"m1": 0.003, "m2": 0.0002}},
	}
	for i, w := range want {
		g := s[i]
		if g.ID != w.ID || g.Task != w.Task || g.Prompt != w.Prompt || len(g.Quality) != 2 || len(g.Cost) != 2 {
			t.Fatalf("sample %d = %+v, want %+v", i, g, w)
		}
		for m := range w.Quality {
			if g.Quality[m] != w.Quality[m] || g.Cost[m] != w.Cost[m] {
				t.Fatalf("sample %d model %s: %v %v", i, m, g.Quality[m], g.Cost[m])
			}
		}
	}
	full, _ := ReadRouterBench(strings.NewReader(rbCSV), false)
	if !strings.HasPrefix(full[0].Prompt, "Few shot example") {
		t.Fatalf("without lastBlock the whole prompt is kept: %q", full[0].Prompt)
	}
	if _, err := ReadRouterBench(strings.NewReader("a,b\n1,2\n"), true); !errors.Is(err, routing.ErrData) {
		t.Fatalf("no prompt column: err %v", err)
	}
}

func TestReadJSONL(t *testing.T) {
	in := `{"prompt":"sort a list","task":"coding","scores":{"a":1,"b":0.5},"costs":{"a":0.01,"b":0.001}}

{"id":"2","prompt":"hi","scores":{"a":1,"c":1},"costs":{"a":0.02}}
`
	s, err := ReadJSONL(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 || s[0].Prompt != "sort a list" || s[0].Task != "coding" || s[0].Quality["b"] != 0.5 || s[0].Cost["b"] != 0.001 {
		t.Fatalf("samples %+v", s)
	}
	if s[1].ID != "2" || len(s[1].Quality) != 1 || s[1].Cost["a"] != 0.02 {
		t.Fatalf("model c has no cost and must be dropped: %+v", s[1])
	}
	for name, bad := range map[string]string{
		"not json":  "{",
		"no prompt": `{"scores":{"a":1},"costs":{"a":1}}`,
		"no costs":  `{"prompt":"x","scores":{"a":1}}`,
		"empty":     "\n\n",
	} {
		if _, err := ReadJSONL(strings.NewReader(bad)); !errors.Is(err, routing.ErrData) {
			t.Errorf("%s: err %v, want ErrData", name, err)
		}
	}
}

func TestLastBlock(t *testing.T) {
	for in, want := range map[string]string{"a\n\nb\n\nc": "c", "single": "single", " x \n\n y \n": "y"} {
		if got := LastBlock(in); got != want {
			t.Errorf("LastBlock(%q) = %q, want %q", in, got, want)
		}
	}
}

package offline

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/heddle-gw/heddle/routing"
	"io"
	"strconv"
	"strings"
)

const costSuffix = "|total_cost"

// ReadRouterBench reads a RouterBench CSV: a prompt column holding a Python
// list literal of strings, an eval_name column, a 0/1 (or fractional) column
// per model and a "<model>|total_cost" column per model. Only complete rows
// (every model has a score and a cost) are kept, and a repeated sample_id
// keeps its first row. The prompt is the list's last string; with lastBlock
// only its last block after the final blank line is kept (RouterBench's ARC
// and WinoGrande prompts repeat a long few-shot preamble before the question).
func ReadRouterBench(r io.Reader, lastBlock bool) ([]Sample, error) {
	cr := csv.NewReader(bufio.NewReaderSize(r, 1<<20))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%w: header: %w", routing.ErrData, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	promptCol, ok := col["prompt"]
	if !ok {
		return nil, fmt.Errorf("%w: no prompt column", routing.ErrData)
	}
	type modelCols struct {
		name        string
		score, cost int
	}
	var models []modelCols
	for _, h := range header {
		if name, found := strings.CutSuffix(h, costSuffix); found {
			if si, ok := col[name]; ok {
				models = append(models, modelCols{name, si, col[h]})
			}
		}
	}
	if len(models) == 0 {
		return nil, fmt.Errorf("%w: no model columns with %q", routing.ErrData, costSuffix)
	}
	idCol, hasID := col["sample_id"]
	taskCol, hasTask := col["eval_name"]
	seen := map[string]bool{}
	var out []Sample
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", routing.ErrData, line, err)
		}
		get := func(i int) string {
			if i < len(rec) {
				return rec[i]
			}
			return ""
		}
		s := Sample{Quality: map[string]float64{}, Cost: map[string]float64{}}
		if hasID {
			s.ID = get(idCol)
			if seen[s.ID] {
				continue
			}
		}
		if hasTask {
			s.Task = get(taskCol)
		}
		complete := true
		for _, m := range models {
			q, err1 := strconv.ParseFloat(get(m.score), 64)
			c, err2 := strconv.ParseFloat(get(m.cost), 64)
			if err1 != nil || err2 != nil {
				complete = false
				break
			}
			s.Quality[m.name], s.Cost[m.name] = q, c
		}
		if !complete {
			continue
		}
		parts, err := parsePyStrList(get(promptCol))
		if err != nil || len(parts) == 0 {
			return nil, fmt.Errorf("%w: line %d: prompt: %v", routing.ErrData, line, err)
		}
		s.Prompt = parts[len(parts)-1]
		if lastBlock {
			s.Prompt = LastBlock(s.Prompt)
		}
		if hasID {
			seen[s.ID] = true
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no complete rows", routing.ErrData)
	}
	return out, nil
}

// LastBlock returns the text after the last blank line of s (all of s when it
// has none), trimmed.
func LastBlock(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, "\n\n"); i >= 0 {
		s = s[i+2:]
	}
	return strings.TrimSpace(s)
}

// jsonlSample is one line of the JSONL training format.
type jsonlSample struct {
	ID     string             `json:"id"`
	Prompt string             `json:"prompt"`
	Task   string             `json:"task"`
	Turn   string             `json:"turn"`
	Scores map[string]float64 `json:"scores"`
	Costs  map[string]float64 `json:"costs"`
}

// ReadJSONL reads samples, one JSON object per line:
// {"prompt": "...", "task": "...", "scores": {model: q}, "costs": {model: c}}
// ("id", "task" and "turn", a routing.TurnType the prompt came from, are
// optional). Blank lines are skipped; a model needs both
// a score and a cost to count.
func ReadJSONL(r io.Reader) ([]Sample, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	var out []Sample
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var j jsonlSample
		if err := json.Unmarshal([]byte(text), &j); err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", routing.ErrData, line, err)
		}
		if j.Prompt == "" || len(j.Scores) == 0 {
			return nil, fmt.Errorf("%w: line %d: prompt and scores are required", routing.ErrData, line)
		}
		s := Sample{ID: j.ID, Prompt: j.Prompt, Task: j.Task, Turn: routing.TurnType(j.Turn), Quality: map[string]float64{}, Cost: map[string]float64{}}
		for m, q := range j.Scores {
			if c, ok := j.Costs[m]; ok {
				s.Quality[m], s.Cost[m] = q, c
			}
		}
		if len(s.Quality) == 0 {
			return nil, fmt.Errorf("%w: line %d: no model has both a score and a cost", routing.ErrData, line)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", routing.ErrData, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no samples", routing.ErrData)
	}
	return out, nil
}

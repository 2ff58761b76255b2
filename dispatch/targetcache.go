package dispatch

import "sync"

// targetCache remembers, per organisation and model, the target that served
// last (seed 004's optimistic routing): the walk tries it first, and any
// failure on it forgets it so the next walk resolves the plan order afresh.
type targetCache struct {
	m sync.Map // org|model -> target key
}

func cacheKey(org, model string) string { return org + "|" + model }

// order returns targets with, for every model, its remembered target moved to
// the position of that model's first target. The input is not modified.
func (c *targetCache) order(org string, targets []Target) []Target {
	cur := targets
	copied := false
	for i := 0; i < len(cur); i++ {
		t := cur[i]
		if firstOfModel(cur, i) != i {
			continue
		}
		v, ok := c.m.Load(cacheKey(org, t.Model))
		if !ok || v.(TargetKey) == t.Key() {
			continue
		}
		for j := i + 1; j < len(cur); j++ {
			if cur[j].Model != t.Model || cur[j].Key() != v.(TargetKey) {
				continue
			}
			if !copied {
				cur = append([]Target(nil), cur...)
				copied = true
			}
			moved := cur[j]
			copy(cur[i+1:j+1], cur[i:j])
			cur[i] = moved
			break
		}
	}
	return cur
}

func firstOfModel(targets []Target, i int) int {
	for j := 0; j < i; j++ {
		if targets[j].Model == targets[i].Model {
			return j
		}
	}
	return i
}

// served remembers t as the good target for its model.
func (c *targetCache) served(org string, t Target) {
	k := cacheKey(org, t.Model)
	if v, ok := c.m.Load(k); ok && v.(TargetKey) == t.Key() {
		return
	}
	c.m.Store(k, t.Key())
}

// failed forgets t if it is the remembered target of its model.
func (c *targetCache) failed(org string, t Target) {
	c.m.CompareAndDelete(cacheKey(org, t.Model), t.Key())
}

package clickhouse

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

// TestPlanLayersUserRollups: a range by user is read from the weekly rollup
// for its whole weeks, the daily one for the whole days at the edges and
// raw for the partial days; the parts tile the range exactly. A weekly
// rollup that starts later (a recent epoch) leaves its weeks to the daily
// one.
func TestPlanLayersUserRollups(t *testing.T) {
	from := time.Date(2026, 11, 20, 5, 0, 0, 0, time.UTC).UnixMilli()
	to := time.Date(2026, 12, 9, 3, 0, 0, 0, time.UTC).UnixMilli()
	r, ok := rollupFor(analytics.DimUser)
	if !ok {
		t.Fatal("no rollup by user")
	}
	for _, c := range []struct {
		name        string
		weeklyStart int64
		wantWeekly  int64 // milliseconds the weekly rollup answers for
	}{
		{"weekly from the start", 0, weekMs},
		{"weekly from its epoch on", time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC).UnixMilli(), 0},
	} {
		s := &Store{epochs: &epochs{}}
		s.epochs.m.Store("requests_weekly_user", c.weeklyStart)
		s.epochs.m.Store("requests_daily_user", int64(0))
		parts, raw, err := s.plan(context.Background(), from, to, r)
		if err != nil {
			t.Fatal(err)
		}
		var tiles []span
		var weekly, daily int64
		for _, p := range parts {
			if p.sp.from%p.r.grainMs != 0 || p.sp.to%p.r.grainMs != 0 {
				t.Errorf("%s: %s part %v is not whole grains", c.name, p.r.table, p.sp)
			}
			switch p.r.table {
			case "requests_weekly_user":
				weekly += p.sp.to - p.sp.from
			case "requests_daily_user":
				daily += p.sp.to - p.sp.from
			}
			tiles = append(tiles, p.sp)
		}
		for _, sp := range raw {
			if sp.to-sp.from >= dayMs {
				t.Errorf("%s: a raw part %v holds a whole day", c.name, sp)
			}
		}
		tiles = append(tiles, raw...)
		slices.SortFunc(tiles, func(a, b span) int { return int(a.from - b.from) })
		at := from
		for _, sp := range tiles {
			if sp.from != at {
				t.Fatalf("%s: parts %v do not tile [%d, %d)", c.name, tiles, from, to)
			}
			at = sp.to
		}
		if at != to || weekly != c.wantWeekly || daily == 0 {
			t.Errorf("%s: parts end at %d (want %d); weekly %d ms (want %d), daily %d ms", c.name, at, to, weekly, c.wantWeekly, daily)
		}
	}
}

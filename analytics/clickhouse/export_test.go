package clickhouse

import "context"

// Apply runs ms as Migrate runs the embedded migrations, for tests.
func (s *Store) Apply(ctx context.Context, ms []Migration) error { return s.apply(ctx, ms) }

// SetListBudget sets the rows an explorer page reads before it stops
// searching older, for tests.
func (s *Store) SetListBudget(rows int64) { s.listBudget = rows }

// SetExactQuantiles sets how many requests Summary's percentiles are exact
// for, for tests.
func (s *Store) SetExactQuantiles(rows int64) { s.exactQuantiles = rows }

// SetRankTies sets how many hashes (users times the sum pass's parts) a
// page by user's integer rank may leave to the sum pass before it ranks by
// the strings, for tests.
func (s *Store) SetRankTies(n int) { s.rankTies = n }

// RollupTables returns the tables the reads use rollups from: Breakdown's
// rollups and the finer ones they fall back to, the rank by user's and the
// latency histogram.
func RollupTables() []string {
	var out []string
	add := func(r *rollup) {
		for ; r != nil; r = r.finer {
			out = append(out, r.table)
		}
	}
	for i := range rollups {
		add(&rollups[i])
	}
	add(&weeklyUserRank)
	add(&latencyHistogram)
	return out
}

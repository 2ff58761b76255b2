package clickhouse

import "context"

// Apply runs ms as Migrate runs the embedded migrations, for tests.
func (s *Store) Apply(ctx context.Context, ms []Migration) error { return s.apply(ctx, ms) }

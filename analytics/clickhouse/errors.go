package clickhouse

import "errors"

// ErrMigration is wrapped by errors of the migration runner.
var ErrMigration = errors.New("clickhouse: migration")

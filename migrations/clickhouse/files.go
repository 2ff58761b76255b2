// Package clickhouse embeds the ClickHouse migrations: NNNNN_name.sql files
// applied in order by analytics/clickhouse's runner. Each file holds
// statements separated by semicolons at line ends; every statement must be
// idempotent (IF NOT EXISTS) and accepted by ClickHouse 18.16 and current
// releases. Lines starting with "--" are comments.
//
// Ring: data. No code, no I/O.
package clickhouse

import "embed"

// FS holds the migration files at its root.
//
//go:embed *.sql
var FS embed.FS

package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	chsql "github.com/heddle-gw/heddle/migrations/clickhouse"
)

// Migration is one migration file.
type Migration struct {
	Version    uint64
	Name       string
	Statements []string
}

const versionTable = `CREATE TABLE IF NOT EXISTS heddle_schema_migrations (
    version UInt64,
    name String,
    applied_at DateTime
) ENGINE = ReplacingMergeTree() ORDER BY version`

// Migrate applies, in version order, the embedded migrations not yet
// recorded in heddle_schema_migrations, recording each after its
// statements succeeded. Statements are idempotent, so replicas migrating at
// once are harmless.
func (s *Store) Migrate(ctx context.Context) error {
	ms, err := Migrations(chsql.FS)
	if err != nil {
		return err
	}
	return s.apply(ctx, ms)
}

func (s *Store) apply(ctx context.Context, ms []Migration) error {
	if err := s.conn.Exec(ctx, versionTable); err != nil {
		return fmt.Errorf("%w: create version table: %w", ErrMigration, err)
	}
	done, err := s.Applied(ctx)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if slices.Contains(done, m.Version) {
			continue
		}
		for i, stmt := range m.Statements {
			if err := s.conn.Exec(ctx, stmt); err != nil && !columnExists(stmt, err) {
				return fmt.Errorf("%w: %05d_%s statement %d: %w", ErrMigration, m.Version, m.Name, i+1, err)
			}
		}
		b, err := s.conn.PrepareBatch(ctx, "INSERT INTO heddle_schema_migrations (version, name, applied_at)")
		if err != nil {
			return fmt.Errorf("%w: record %d: %w", ErrMigration, m.Version, err)
		}
		if err := b.Append(m.Version, m.Name, time.Now().UTC()); err != nil {
			_ = b.Abort()
			return fmt.Errorf("%w: record %d: %w", ErrMigration, m.Version, err)
		}
		if err := b.Send(); err != nil {
			return fmt.Errorf("%w: record %d: %w", ErrMigration, m.Version, err)
		}
	}
	return nil
}

// columnExists reports whether err is ClickHouse refusing an ADD COLUMN
// because the column is there already (code 44): 18.16 has no ADD COLUMN IF
// NOT EXISTS, so the runner makes such a statement idempotent itself (a
// replica migrating at the same time, or a crash before the version row).
func columnExists(stmt string, err error) bool {
	var ex *ch.Exception
	return errors.As(err, &ex) && ex.Code == 44 && strings.Contains(strings.ToUpper(stmt), "ADD COLUMN")
}

// Applied returns the versions recorded as applied, ascending.
func (s *Store) Applied(ctx context.Context) ([]uint64, error) {
	rows, err := s.conn.Query(ctx, "SELECT version FROM heddle_schema_migrations FINAL ORDER BY version")
	if err != nil {
		return nil, fmt.Errorf("%w: read versions: %w", ErrMigration, err)
	}
	defer rows.Close()
	var out []uint64
	for rows.Next() {
		var v uint64
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("%w: read versions: %w", ErrMigration, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%w: read versions: %w", ErrMigration, err)
	}
	return out, nil
}

// Migrations parses the NNNNN_name.sql files at the root of fsys, ordered
// by version. Duplicate versions and files without statements are errors.
func Migrations(fsys fs.FS) ([]Migration, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("%w: list: %w", ErrMigration, err)
	}
	var out []Migration
	for _, file := range names {
		num, name, ok := strings.Cut(strings.TrimSuffix(file, ".sql"), "_")
		v, err := strconv.ParseUint(num, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("%w: %s: name is not NNNNN_name.sql", ErrMigration, file)
		}
		body, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, fmt.Errorf("%w: read %s: %w", ErrMigration, file, err)
		}
		stmts := statements(string(body))
		if len(stmts) == 0 {
			return nil, fmt.Errorf("%w: %s has no statements", ErrMigration, file)
		}
		out = append(out, Migration{Version: v, Name: name, Statements: stmts})
	}
	slices.SortFunc(out, func(a, b Migration) int { return cmpU(a.Version, b.Version) })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("%w: duplicate version %d", ErrMigration, out[i].Version)
		}
	}
	return out, nil
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// statements drops comment lines and splits on semicolons that end a line.
func statements(body string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	for line := range strings.Lines(body) {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "--") {
			continue
		}
		if strings.HasSuffix(trimmed, ";") {
			cur.WriteString(strings.TrimSuffix(trimmed, ";"))
			flush()
			continue
		}
		cur.WriteString(line)
	}
	flush()
	return out
}

// Package migrations holds Heddle's SQL migrations and runs the app-database
// ones (Postgres and SQLite) with pressly/goose v3. Files live in
// app/postgres and app/sqlite, numbered NNNNN_name.sql with goose Up/Down
// sections: 00001-00099 tenancy, 00100 and up analytics' embedded store. Up
// applies whatever files are embedded, in order. ClickHouse migrations live
// in clickhouse/ with their own runner.
//
// Ring: adapter (schema). It talks only to the *sql.DB it is given.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// Dialect is an app-database SQL dialect.
type Dialect string

// Supported app-database dialects.
const (
	Postgres Dialect = "postgres"
	SQLite   Dialect = "sqlite"
)

//go:embed app/postgres/*.sql app/sqlite/*.sql
var appFiles embed.FS

// AppFS returns the app-database migration files of a dialect.
func AppFS(d Dialect) (fs.FS, error) {
	switch d {
	case Postgres:
		return fs.Sub(appFiles, "app/postgres")
	case SQLite:
		return fs.Sub(appFiles, "app/sqlite")
	}
	return nil, fmt.Errorf("migrations: unknown dialect %q", d)
}

func provider(db *sql.DB, d Dialect, logger *slog.Logger) (*goose.Provider, error) {
	fsys, err := AppFS(d)
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true), goose.WithSlog(logger)}
	dialect := goose.DialectSQLite3
	if d == Postgres {
		dialect = goose.DialectPostgres
		// Replicas starting together: one migrates, the others wait.
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return nil, fmt.Errorf("migrations: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(dialect, db, fsys, opts...)
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	return p, nil
}

// Up applies every pending app-database migration and returns the versions
// it applied.
func Up(ctx context.Context, db *sql.DB, d Dialect, logger *slog.Logger) ([]int64, error) {
	p, err := provider(db, d, logger)
	if err != nil {
		return nil, err
	}
	res, err := p.Up(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrations: up (%s): %w", d, err)
	}
	applied := make([]int64, 0, len(res))
	for _, r := range res {
		applied = append(applied, r.Source.Version)
	}
	return applied, nil
}

// Version returns the highest applied migration version (0 when none).
func Version(ctx context.Context, db *sql.DB, d Dialect) (int64, error) {
	p, err := provider(db, d, nil)
	if err != nil {
		return 0, err
	}
	v, err := p.GetDBVersion(ctx)
	if err != nil {
		return 0, fmt.Errorf("migrations: version (%s): %w", d, err)
	}
	return v, nil
}

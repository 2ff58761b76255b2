package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	gormlogger "gorm.io/gorm/logger"

	"github.com/heddle-gw/heddle/migrations"
)

// envPostgresURL names the variable holding the admin URL of the test
// Postgres server; defaultPostgresURL is used when it is empty.
const (
	envPostgresURL     = "HEDDLE_TEST_POSTGRES_URL"
	defaultPostgresURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
)

// sqliteParams open SQLite the way the app opens its default database.
const sqliteParams = "?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_txlock=immediate"

// DB is one fresh, migrated database and how to open it again.
type DB struct {
	// Kind is "sqlite" or "postgres".
	Kind string
	// DB is an open handle, closed when the test ends.
	DB *gorm.DB
	// DSN opens the same database again.
	DSN string
	// Dir is the directory holding the SQLite files; empty for Postgres.
	Dir string
	// Reopen opens another handle on the same database (a restart, or another
	// replica), closed when t ends.
	Reopen func(t testing.TB) *gorm.DB
}

// Each runs fn in subtests "sqlite" and "postgres", each with a fresh
// database.
func Each(t *testing.T, fn func(t *testing.T, d DB)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, Postgres(t)) })
}

// SQLite returns a migrated SQLite database in a fresh t.TempDir().
func SQLite(t testing.TB) DB {
	t.Helper()
	dir := t.TempDir()
	dsn := filepath.Join(dir, "heddle.db") + sqliteParams
	db := open(t, sqlite.Open(dsn))
	migrate(t, db, migrations.SQLite)
	return DB{Kind: "sqlite", DB: db, DSN: dsn, Dir: dir,
		Reopen: func(t testing.TB) *gorm.DB { return open(t, sqlite.Open(dsn)) }}
}

// Postgres creates heddle_test_<random> on the server at
// HEDDLE_TEST_POSTGRES_URL (default postgres@127.0.0.1:5432), migrates it and drops it WITH (FORCE) when the test ends. An unreachable
// server fails the test.
func Postgres(t testing.TB) DB {
	t.Helper()
	base := os.Getenv(envPostgresURL)
	if base == "" {
		base = defaultPostgresURL
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", envPostgresURL, err)
	}
	admin, err := gorm.Open(postgres.Open(base), config())
	if err != nil {
		t.Fatalf("postgres unreachable at %s (%v); start it or set the variable", envPostgresURL, err)
	}
	adminDB, err := admin.DB()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := adminDB.PingContext(ctx); err != nil {
		_ = adminDB.Close()
		t.Fatalf("postgres unreachable at %s: %v", envPostgresURL, err)
	}
	name := "heddle_test_" + randomHex(6)
	if err := admin.Exec("CREATE DATABASE " + name).Error; err != nil {
		_ = adminDB.Close()
		t.Fatalf("create database: %v", err)
	}
	// Registered before any handle on the new database, so it runs after
	// their cleanups have closed them.
	t.Cleanup(func() {
		if err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)").Error; err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
		_ = adminDB.Close()
	})
	u.Path = "/" + name
	dsn := u.String()
	db := open(t, postgres.Open(dsn))
	migrate(t, db, migrations.Postgres)
	return DB{Kind: "postgres", DB: db, DSN: dsn,
		Reopen: func(t testing.TB) *gorm.DB { return open(t, postgres.Open(dsn)) }}
}

// config is the gorm configuration every test handle uses: no logging, no
// implicit transaction around single writes (as the app opens it).
func config() *gorm.Config {
	return &gorm.Config{Logger: gormlogger.Discard, SkipDefaultTransaction: true}
}

// open opens d with config and closes the handle when t ends.
func open(t testing.TB, d gorm.Dialector) *gorm.DB {
	t.Helper()
	db, err := gorm.Open(d, config())
	if err != nil {
		t.Fatalf("open %s: %v", d.Name(), err)
	}
	t.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			_ = sqlDB.Close()
		}
	})
	return db
}

// migrate applies every app migration of dialect d.
func migrate(t testing.TB, db *gorm.DB, d migrations.Dialect) {
	t.Helper()
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := migrations.Up(ctx, sqlDB, d, nil); err != nil {
		t.Fatalf("migrate %s: %v", d, err)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

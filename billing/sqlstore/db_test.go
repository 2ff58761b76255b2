package sqlstore_test

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

func gormConfig() *gorm.Config {
	return &gorm.Config{Logger: gormlogger.Discard, SkipDefaultTransaction: true}
}

func closeOnCleanup(t *testing.T, db *gorm.DB) {
	t.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			sqlDB.Close()
		}
	})
}

func migrate(t *testing.T, db *gorm.DB, d migrations.Dialect) {
	t.Helper()
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrations.Up(context.Background(), sqlDB, d, nil); err != nil {
		t.Fatalf("migrate %s: %v", d, err)
	}
}

// openSQLite returns n handles ("replicas") on one fresh, migrated SQLite
// file.
func openSQLite(t *testing.T, n int) []*gorm.DB {
	t.Helper()
	dsn := filepath.Join(t.TempDir(), "heddle.db") +
		"?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_txlock=immediate"
	var dbs []*gorm.DB
	for range n {
		db, err := gorm.Open(sqlite.Open(dsn), gormConfig())
		if err != nil {
			t.Fatalf("open sqlite: %v", err)
		}
		closeOnCleanup(t, db)
		dbs = append(dbs, db)
	}
	migrate(t, dbs[0], migrations.SQLite)
	return dbs
}

// openPostgres creates a fresh database, migrates it, returns n handles on
// it and drops it when the test ends. An unreachable server fails the test.
func openPostgres(t *testing.T, n int) []*gorm.DB {
	t.Helper()
	base := os.Getenv("HEDDLE_TEST_POSTGRES_URL")
	if base == "" {
		base = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	admin, err := gorm.Open(postgres.Open(base), gormConfig())
	if err != nil {
		t.Fatalf("postgres unreachable at HEDDLE_TEST_POSTGRES_URL (%v); start it or set the variable", err)
	}
	adminDB, _ := admin.DB()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := adminDB.PingContext(ctx); err != nil {
		adminDB.Close()
		t.Fatalf("postgres unreachable at HEDDLE_TEST_POSTGRES_URL: %v", err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := "heddle_test_" + hex.EncodeToString(b)
	if err := admin.Exec("CREATE DATABASE " + name).Error; err != nil {
		adminDB.Close()
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		adminDB.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	var dbs []*gorm.DB
	for range n {
		db, err := gorm.Open(postgres.Open(u.String()), gormConfig())
		if err != nil {
			t.Fatalf("open %s: %v", name, err)
		}
		closeOnCleanup(t, db)
		dbs = append(dbs, db)
	}
	migrate(t, dbs[0], migrations.Postgres)
	return dbs
}

// eachDB runs fn against a fresh SQLite and a fresh Postgres database, with
// n handles on each.
func eachDB(t *testing.T, n int, fn func(t *testing.T, dbs []*gorm.DB)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, openSQLite(t, n)) })
	t.Run("postgres", func(t *testing.T) { fn(t, openPostgres(t, n)) })
}

package orgsql_test

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

// testDB is one migrated database and how to open it again (a restart).
type testDB struct {
	kind   string
	db     *gorm.DB
	reopen func(t *testing.T) *gorm.DB
}

func gormConfig() *gorm.Config {
	return &gorm.Config{Logger: gormlogger.Discard, SkipDefaultTransaction: true}
}

func open(t *testing.T, d gorm.Dialector) *gorm.DB {
	t.Helper()
	db, err := gorm.Open(d, gormConfig())
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			sqlDB.Close()
		}
	})
	return db
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

func openSQLite(t *testing.T) testDB {
	t.Helper()
	dsn := filepath.Join(t.TempDir(), "heddle.db") +
		"?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_txlock=immediate"
	db := open(t, sqlite.Open(dsn))
	migrate(t, db, migrations.SQLite)
	return testDB{kind: "sqlite", db: db, reopen: func(t *testing.T) *gorm.DB { return open(t, sqlite.Open(dsn)) }}
}

// openPostgres creates a fresh database on the test server
// (HEDDLE_TEST_POSTGRES_URL, default postgres@127.0.0.1:5432), migrates it
// and drops it when the test ends. An unreachable server fails the test.
func openPostgres(t *testing.T) testDB {
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
		t.Fatalf("postgres unreachable: %v", err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := "heddle_test_" + hex.EncodeToString(b)
	if err := admin.Exec("CREATE DATABASE " + name).Error; err != nil {
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
	dsn := u.String()
	db := open(t, postgres.Open(dsn))
	migrate(t, db, migrations.Postgres)
	return testDB{kind: "postgres", db: db, reopen: func(t *testing.T) *gorm.DB { return open(t, postgres.Open(dsn)) }}
}

// eachDB runs fn against a fresh SQLite and a fresh Postgres database.
func eachDB(t *testing.T, fn func(t *testing.T, d testDB)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, openSQLite(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, openPostgres(t)) })
}

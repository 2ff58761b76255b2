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

// migrate applies every app migration (tenancy's and 00100_analytics).
func migrate(t *testing.T, db *gorm.DB, d migrations.Dialect) {
	t.Helper()
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := migrations.Up(ctx, sqlDB, d, nil); err != nil {
		t.Fatalf("migrate %s: %v", d, err)
	}
}

// openSQLite returns a migrated SQLite database in a temporary directory,
// opened the way the app opens its default database.
func openSQLite(t *testing.T) *gorm.DB {
	t.Helper()
	dsn := filepath.Join(t.TempDir(), "heddle.db") +
		"?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_txlock=immediate"
	db, err := gorm.Open(sqlite.Open(dsn), gormConfig())
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			_ = sqlDB.Close()
		}
	})
	migrate(t, db, migrations.SQLite)
	return db
}

// openPostgres creates heddle_test_<random> on the test server, migrates it
// and drops it when the test ends. An unreachable server fails the test.
func openPostgres(t *testing.T) *gorm.DB {
	t.Helper()
	base := os.Getenv("HEDDLE_TEST_POSTGRES_URL")
	if base == "" {
		base = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	admin, err := gorm.Open(postgres.Open(base), gormConfig())
	if err != nil {
		t.Fatalf("postgres unreachable at %s: %v", base, err)
	}
	adminDB, err := admin.DB()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := adminDB.PingContext(ctx); err != nil {
		t.Fatalf("postgres unreachable at %s: %v", base, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "heddle_test_" + hex.EncodeToString(b[:])
	if err := admin.Exec("CREATE DATABASE " + name).Error; err != nil {
		t.Fatalf("create database: %v", err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	db, err := gorm.Open(postgres.Open(u.String()), gormConfig())
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	t.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			_ = sqlDB.Close()
		}
		if err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)").Error; err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
		_ = adminDB.Close()
	})
	migrate(t, db, migrations.Postgres)
	return db
}

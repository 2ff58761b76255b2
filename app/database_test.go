package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	gormlogger "gorm.io/gorm/logger"
)

func TestOpenDatabaseSQLite(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "nested", "data")
	db, dialect, err := OpenDatabase(ctx, "", dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := db.DB()
	t.Cleanup(func() { sqlDB.Close() })
	if dialect != DialectSQLite {
		t.Fatalf("dialect %q", dialect)
	}
	if fi, err := os.Stat(filepath.Join(dir, "heddle.db")); err != nil || fi.IsDir() {
		t.Fatalf("database file: %v", err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("data dir mode %v", fi.Mode().Perm())
	}
	var fk int
	var journal string
	db.Raw("PRAGMA foreign_keys").Scan(&fk)
	db.Raw("PRAGMA journal_mode").Scan(&journal)
	if fk != 1 || journal != "wal" {
		t.Fatalf("foreign_keys=%d journal_mode=%q", fk, journal)
	}
	for range 2 {
		if err := MigrateDatabase(ctx, db, dialect); err != nil {
			t.Fatal(err)
		}
	}
	var n int64
	if err := db.Raw("SELECT count(*) FROM api_keys").Scan(&n).Error; err != nil {
		t.Fatalf("migrated schema: %v", err)
	}
	// A dangling reference is refused: foreign keys are enforced.
	err = db.Exec("INSERT INTO memberships (org_id, user_id, role, created_at) VALUES ('x', 'y', 'owner', '2026-01-01 00:00:00+00:00')").Error
	if err == nil {
		t.Fatal("foreign keys not enforced")
	}
}

func TestOpenDatabasePostgres(t *testing.T) {
	ctx := context.Background()
	base := os.Getenv("HEDDLE_TEST_POSTGRES_URL")
	if base == "" {
		base = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	admin, err := gorm.Open(postgres.Open(base), &gorm.Config{Logger: gormlogger.Discard})
	if err != nil {
		t.Fatalf("postgres unreachable: %v", err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := "heddle_test_" + hex.EncodeToString(b)
	if err := admin.Exec("CREATE DATABASE " + name).Error; err != nil {
		t.Fatalf("postgres unreachable or refusing: %v", err)
	}
	u, _ := url.Parse(base)
	u.Path = "/" + name
	db, dialect, err := OpenDatabase(ctx, u.String(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := db.DB()
	t.Cleanup(func() {
		sqlDB.Close()
		admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		if a, err := admin.DB(); err == nil {
			a.Close()
		}
	})
	if dialect != DialectPostgres {
		t.Fatalf("dialect %q", dialect)
	}
	for range 2 {
		if err := MigrateDatabase(ctx, db, dialect); err != nil {
			t.Fatal(err)
		}
	}
	var n int64
	if err := db.Raw("SELECT count(*) FROM credentials").Scan(&n).Error; err != nil {
		t.Fatalf("migrated schema: %v", err)
	}
}

func TestOpenDatabaseUnreachable(t *testing.T) {
	_, _, err := OpenDatabase(context.Background(), "postgres://postgres@127.0.0.1:1/x?sslmode=disable&connect_timeout=2", t.TempDir(), nil)
	if err == nil {
		t.Fatal("opened an unreachable database")
	}
}

package testdb_test

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/migrations"
)

// TestEachGivesMigratedReopenableDatabases: each dialect's database is
// migrated, is fresh, and a reopened handle sees what the first one wrote.
func TestEachGivesMigratedReopenableDatabases(t *testing.T) {
	var kinds, dsns []string
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		kinds, dsns = append(kinds, d.Kind), append(dsns, d.DSN)
		sqlDB, err := d.DB.DB()
		if err != nil {
			t.Fatal(err)
		}
		v, err := migrations.Version(context.Background(), sqlDB, migrations.Dialect(d.Kind))
		if err != nil || v == 0 {
			t.Fatalf("%s: migration version = %d, %v; want applied", d.Kind, v, err)
		}
		if err := d.DB.Exec("CREATE TABLE testdb_probe (v INTEGER)").Error; err != nil {
			t.Fatalf("%s: fresh database already has the probe table: %v", d.Kind, err)
		}
		if err := d.DB.Exec("INSERT INTO testdb_probe (v) VALUES (42)").Error; err != nil {
			t.Fatal(err)
		}
		var got int
		if err := d.Reopen(t).Raw("SELECT v FROM testdb_probe").Scan(&got).Error; err != nil || got != 42 {
			t.Fatalf("%s: reopened handle reads %d, %v; want 42", d.Kind, got, err)
		}
		switch d.Kind {
		case "sqlite":
			if !strings.HasPrefix(d.DSN, d.Dir) {
				t.Fatalf("sqlite DSN %q is not under Dir %q", d.DSN, d.Dir)
			}
			if entries, err := os.ReadDir(d.Dir); err != nil || len(entries) == 0 {
				t.Fatalf("sqlite Dir %q holds %d files, %v", d.Dir, len(entries), err)
			}
		case "postgres":
			if d.Dir != "" || !strings.Contains(d.DSN, "/heddle_test_") {
				t.Fatalf("postgres Dir %q, DSN %q", d.Dir, d.DSN)
			}
		}
	})
	if strings.Join(kinds, ",") != "sqlite,postgres" {
		t.Fatalf("kinds = %v, want [sqlite postgres]", kinds)
	}
	if len(dsns) == 2 {
		assertDropped(t, dsns[1])
	}
}

// TestPostgresDatabasesAreDistinct: two calls give two databases.
func TestPostgresDatabasesAreDistinct(t *testing.T) {
	a, b := testdb.Postgres(t), testdb.Postgres(t)
	if a.DSN == b.DSN {
		t.Fatalf("two Postgres calls share %s", a.DSN)
	}
}

// assertDropped fails unless the database named in dsn is gone once its
// test has ended.
func assertDropped(t *testing.T, dsn string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	admin := testdb.Postgres(t).DB
	var n int64
	if err := admin.Raw("SELECT count(*) FROM pg_database WHERE datname = ?", name).Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("database %s still exists after its test ended", name)
	}
}

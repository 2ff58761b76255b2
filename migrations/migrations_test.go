package migrations_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	_ "github.com/glebarez/go-sqlite"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/heddle-gw/heddle/migrations"
)

func sqliteDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "m.db")+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// postgresDB creates a fresh database and drops it after the test; an
// unreachable server fails the test.
func postgresDB(t *testing.T) *sql.DB {
	t.Helper()
	base := os.Getenv("HEDDLE_TEST_POSTGRES_URL")
	if base == "" {
		base = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.Ping(); err != nil {
		t.Fatalf("postgres unreachable at HEDDLE_TEST_POSTGRES_URL: %v", err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := "heddle_test_" + hex.EncodeToString(b)
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(base)
	u.Path = "/" + name
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		admin.Close()
	})
	return db
}

func TestUpIsIdempotent(t *testing.T) {
	for _, c := range []struct {
		d    migrations.Dialect
		open func(*testing.T) *sql.DB
	}{{migrations.SQLite, sqliteDB}, {migrations.Postgres, postgresDB}} {
		t.Run(string(c.d), func(t *testing.T) {
			ctx := context.Background()
			db := c.open(t)
			v, err := migrations.Version(ctx, db, c.d)
			if err != nil || v != 0 {
				t.Fatalf("version of an empty database: %d, %v", v, err)
			}
			applied, err := migrations.Up(ctx, db, c.d, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(applied) == 0 || applied[0] != 1 || !slices.IsSorted(applied) {
				t.Fatalf("applied %v", applied)
			}
			again, err := migrations.Up(ctx, db, c.d, nil)
			if err != nil || len(again) != 0 {
				t.Fatalf("second Up applied %v (%v)", again, err)
			}
			v, err = migrations.Version(ctx, db, c.d)
			if err != nil || v != applied[len(applied)-1] {
				t.Fatalf("version %d (%v), want %d", v, err, applied[len(applied)-1])
			}
			for _, table := range []string{"orgs", "users", "memberships", "invitations", "console_sessions", "api_keys", "org_data_keys", "credentials"} {
				if _, err := db.ExecContext(ctx, "SELECT count(*) FROM "+table); err != nil {
					t.Fatalf("table %s: %v", table, err)
				}
			}
		})
	}
}

// Replicas starting at once: the Postgres session lock lets one migrate and
// the other find nothing left to do.
func TestConcurrentUpOnPostgres(t *testing.T) {
	db := postgresDB(t)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = migrations.Up(context.Background(), db, migrations.Postgres, nil)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
	}
}

// Both dialects must carry the same migration versions, so a deployment can
// move from SQLite to Postgres without a gap.
func TestDialectsHaveTheSameVersions(t *testing.T) {
	names := map[migrations.Dialect][]string{}
	for _, d := range []migrations.Dialect{migrations.Postgres, migrations.SQLite} {
		fsys, err := migrations.AppFS(d)
		if err != nil {
			t.Fatal(err)
		}
		files, err := fs.Glob(fsys, "*.sql")
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v %v", d, files, err)
		}
		names[d] = files
	}
	if !slices.Equal(names[migrations.Postgres], names[migrations.SQLite]) {
		t.Fatalf("postgres %v, sqlite %v", names[migrations.Postgres], names[migrations.SQLite])
	}
	if _, err := migrations.AppFS("mysql"); err == nil {
		t.Fatal("unknown dialect accepted")
	}
}

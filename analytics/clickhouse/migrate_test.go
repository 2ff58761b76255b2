package clickhouse_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/heddle-gw/heddle/analytics/clickhouse"
	chsql "github.com/heddle-gw/heddle/migrations/clickhouse"
)

func TestMigrationsParse(t *testing.T) {
	tests := []struct {
		name    string
		files   fstest.MapFS
		want    []clickhouse.Migration
		wantErr bool
	}{
		{"ordered, comments dropped, split at line-end semicolons", fstest.MapFS{
			"00002_b.sql": {Data: []byte("-- comment; not a statement\nCREATE TABLE b (x String) ENGINE = Memory;\nSELECT ';'\n")},
			"00001_a.sql": {Data: []byte("CREATE TABLE a (\n  x String\n) ENGINE = Memory")},
			"README.md":   {Data: []byte("ignored")},
		}, []clickhouse.Migration{
			{Version: 1, Name: "a", Statements: []string{"CREATE TABLE a (\n  x String\n) ENGINE = Memory"}},
			{Version: 2, Name: "b", Statements: []string{"CREATE TABLE b (x String) ENGINE = Memory", "SELECT ';'"}},
		}, false},
		{"bad name", fstest.MapFS{"first.sql": {Data: []byte("SELECT 1")}}, nil, true},
		{"empty file", fstest.MapFS{"00001_a.sql": {Data: []byte("-- nothing\n")}}, nil, true},
		{"duplicate version", fstest.MapFS{"00001_a.sql": {Data: []byte("SELECT 1")}, "1_b.sql": {Data: []byte("SELECT 2")}}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := clickhouse.Migrations(tt.files)
			if tt.wantErr {
				if !errors.Is(err, clickhouse.ErrMigration) {
					t.Fatalf("got %v, want ErrMigration", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, tt.want, func(a, b clickhouse.Migration) bool {
				return a.Version == b.Version && a.Name == b.Name && slices.Equal(a.Statements, b.Statements)
			}) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

// TestMigrateIsRepeatable runs the embedded migrations on a fresh database
// (Open did once) again: nothing is re-applied or recorded twice, and the
// tables have the columns the adapter writes.
func TestMigrateIsRepeatable(t *testing.T) {
	s := openFresh(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ms, err := clickhouse.Migrations(chsql.FS)
	if err != nil {
		t.Fatal(err)
	}
	var want []uint64
	for _, m := range ms {
		want = append(want, m.Version)
	}
	for range 2 {
		if err := s.Migrate(ctx); err != nil {
			t.Fatalf("Migrate again: %v", err)
		}
	}
	got, err := s.Applied(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) || len(want) < 2 {
		t.Errorf("applied %v, want %v", got, want)
	}
	var n uint64
	if err := s.Conn().QueryRow(ctx, "SELECT count() FROM heddle_schema_migrations").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != uint64(len(want)) {
		t.Errorf("version rows: %d, want %d", n, len(want))
	}
	for _, table := range []string{"attempts", "requests"} {
		var engine, key, partition string
		err := s.Conn().QueryRow(ctx, "SELECT engine, sorting_key, partition_key FROM system.tables"+
			" WHERE database = currentDatabase() AND name = ?", table).Scan(&engine, &key, &partition)
		if err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if engine != "ReplacingMergeTree" || key != "org_id, time, event_id" || partition != "toYYYYMM(time)" {
			t.Errorf("%s: engine %q, sorting key %q, partition key %q", table, engine, key, partition)
		}
	}
}

func TestOpenFailsOnUnreachableServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := clickhouse.Open(ctx, "clickhouse://127.0.0.1:1/default?dial_timeout=200ms"); err == nil {
		t.Fatal("Open succeeded against a closed port")
	}
	if _, err := clickhouse.Open(ctx, "::not a url"); err == nil {
		t.Fatal("Open accepted a malformed url")
	}
}

// TestMigrateAddColumnIdempotent: an ADD COLUMN whose column exists (a
// replica migrating at once, a crash before the version row) counts as
// applied; any other failing statement still fails the migration.
func TestMigrateAddColumnIdempotent(t *testing.T) {
	s := openFresh(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	again := clickhouse.Migration{Version: 9001, Name: "tags_again", Statements: []string{"ALTER TABLE requests ADD COLUMN tags String DEFAULT ''"}}
	if err := s.Apply(ctx, []clickhouse.Migration{again}); err != nil {
		t.Fatalf("re-adding an existing column: %v", err)
	}
	got, err := s.Applied(ctx)
	if err != nil || !slices.Contains(got, 9001) {
		t.Fatalf("applied %v (%v), want 9001 recorded", got, err)
	}
	bad := clickhouse.Migration{Version: 9002, Name: "bad", Statements: []string{"ALTER TABLE requests MODIFY COLUMN no_such_column String"}}
	if err := s.Apply(ctx, []clickhouse.Migration{bad}); !errors.Is(err, clickhouse.ErrMigration) {
		t.Fatalf("a failing statement: %v, want ErrMigration", err)
	}
}

package clickhouse_test

import (
	"context"
	"errors"
	"slices"
	"strings"
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

// TestEveryViewFeedsARead: each materialized view runs on every insert into
// its source table, so each must fill a table some read uses; the tables
// of the views dropped as unread (00006's, 00013's and 00014's) stay.
func TestEveryViewFeedsARead(t *testing.T) {
	s := openFresh(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := s.Conn().Query(ctx, "SELECT name, create_table_query FROM system.tables"+
		" WHERE database = currentDatabase() AND engine = 'MaterializedView' ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	read := clickhouse.RollupTables()
	targets := map[string]bool{}
	for rows.Next() {
		var name, create string
		if err := rows.Scan(&name, &create); err != nil {
			t.Fatal(err)
		}
		_, after, ok := strings.Cut(create, " TO ")
		target, _, _ := strings.Cut(after, " ")
		if _, table, dotted := strings.Cut(target, "."); dotted {
			target = table
		}
		if !ok || target == "" {
			t.Errorf("view %s: no TO table in %q", name, create)
			continue
		}
		targets[target] = true
		if !slices.Contains(read, target) {
			t.Errorf("view %s fills %s, which no read uses (reads use %v)", name, target, read)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, table := range read {
		if !targets[table] {
			t.Errorf("read rollup %s has no view filling it", table)
		}
	}
	for _, kept := range []string{"attempts_hourly_reason", "attempts_hourly_reason_approx", "attempts_daily_reason_approx"} {
		var n uint64
		if err := s.Conn().QueryRow(ctx, "SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = ?", kept).Scan(&n); err != nil || n != 1 {
			t.Errorf("table %s of a dropped view: %d tables, %v; want it kept", kept, n, err)
		}
	}
}

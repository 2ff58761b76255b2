package app

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// TestLazyClickHousePassesFreshInsertsThrough: the binary's ClickHouse
// store hands the Writer's first tries to the store's fresh inserts (no
// stored-ids SELECT in system.query_log) and its other inserts to the
// checked ones (one stored-ids SELECT per table).
func TestLazyClickHousePassesFreshInsertsThrough(t *testing.T) {
	conn, db, url := freshClickHouseDB(t)
	ctx := context.Background()

	l, err := newLazyClickHouse(url, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	l.start(func() {})
	t.Cleanup(func() { _ = l.Close() })
	testwait.Until(t, time.Minute, "clickhouse connected and migrated", func() bool {
		_, err := l.current()
		return err == nil
	})

	// Each path's queries carry their own quota key, to find them in the
	// query log.
	logged := func(key string) context.Context {
		return ch.Context(ctx, ch.WithSettings(ch.Settings{"log_queries": 1}), ch.WithQuotaKey(key))
	}
	freshKey := fmt.Sprintf("%s-fresh", db)
	checkedKey := fmt.Sprintf("%s-checked", db)
	at := time.Now().UTC().Add(-time.Minute)
	rows := func(p string) ([]analytics.Attempt, []analytics.Request) {
		return []analytics.Attempt{{EventID: p + "-a", Time: at, OrgID: "org-l", RequestID: p + "-req", Outcome: "served"}},
			[]analytics.Request{{EventID: p + "-r", Time: at, OrgID: "org-l", RequestID: p + "-req", Status: 200}}
	}
	fa, fr := rows("fresh")
	ca, cr := rows("checked")
	for _, err := range []error{
		l.InsertFreshAttempts(logged(freshKey), fa),
		l.InsertFreshRequests(logged(freshKey), fr),
		l.InsertAttempts(logged(checkedKey), ca),
		l.InsertRequests(logged(checkedKey), cr),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}

	if err := conn.Exec(ctx, "SYSTEM FLUSH LOGS"); err != nil {
		t.Fatal(err)
	}
	storedIDs := func(key string) (inserts, checks uint64) {
		t.Helper()
		if err := conn.QueryRow(ctx, "SELECT countIf(query LIKE 'INSERT INTO %'), countIf(query LIKE 'SELECT event_id FROM %')"+
			" FROM system.query_log WHERE type = 2 AND quota_key = ?", key).Scan(&inserts, &checks); err != nil {
			t.Fatal(err)
		}
		return inserts, checks
	}
	if ins, checks := storedIDs(freshKey); ins != 2 || checks != 0 {
		t.Errorf("fresh inserts: %d INSERTs and %d stored-ids SELECTs logged, want 2 and 0", ins, checks)
	}
	if ins, checks := storedIDs(checkedKey); ins != 2 || checks != 2 {
		t.Errorf("checked inserts: %d INSERTs and %d stored-ids SELECTs logged, want 2 and 2", ins, checks)
	}
}

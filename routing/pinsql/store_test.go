package pinsql_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/pinsql"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

func TestPinStoreContract(t *testing.T) {
	for _, db := range []struct {
		name string
		open func(t testing.TB) testdb.DB
	}{{"sqlite", testdb.SQLite}, {"postgres", testdb.Postgres}} {
		t.Run(db.name, func(t *testing.T) {
			// Every contract case gets its own fresh database.
			routingtest.PinStoreContract(t, func(t *testing.T, now func() time.Time) routing.PinStore {
				return pinsql.New(db.open(t).DB, now)
			})
		})
	}
}

var (
	t0    = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	alice = routing.PinKey{OrgID: "org_1", KeyID: "key_1", User: "alice", Session: "cc-session-42", Role: "main"}
)

func TestPinsSurviveRestart(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		clock := routingtest.NewClock(t0)
		pin := routing.Pin{Model: "claude-haiku-4-5", Turns: 7, LastInputTokens: 30500, Created: t0.Add(-time.Hour / 2), Updated: t0}
		if err := pinsql.New(d.DB, clock.Now).Put(ctx, alice, pin, time.Hour); err != nil {
			t.Fatal(err)
		}
		sqlDB, _ := d.DB.DB()
		sqlDB.Close() // the first replica goes away

		clock.Advance(10 * time.Minute)
		again := pinsql.New(d.Reopen(t), clock.Now) // a restarted (or another) replica
		got, ok, err := again.Get(ctx, alice)
		if err != nil || !ok {
			t.Fatalf("after restart Get = %v, %v; want the pin", ok, err)
		}
		want := routing.Pin{Model: "claude-haiku-4-5", Turns: 7, LastInputTokens: 30500,
			Created: t0.Add(-time.Hour / 2), Updated: t0}
		if got != want {
			t.Fatalf("after restart Get = %+v, want %+v", got, want)
		}
	})
}

func TestRowsHoldNoSessionOrUser(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		s := pinsql.New(d.DB, routingtest.NewClock(t0).Now)
		if err := s.Put(ctx, alice, routing.Pin{Model: "m", Turns: 1, Created: t0, Updated: t0}, time.Hour); err != nil {
			t.Fatal(err)
		}
		var rows []map[string]any
		if err := d.DB.Raw("SELECT * FROM routing_pins").Scan(&rows).Error; err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 {
			t.Fatalf("got %d rows, want 1", len(rows))
		}
		r := rows[0]
		if r["key_hash"] != alice.Hash() || r["org_id"] != "org_1" || r["model"] != "m" {
			t.Fatalf("row = %v; want key_hash %s, org_1, m", r, alice.Hash())
		}
		if exp := toInt64(r["expires_at_ms"]); exp != t0.Add(time.Hour).UnixMilli() {
			t.Fatalf("expires_at_ms = %d, want %d", exp, t0.Add(time.Hour).UnixMilli())
		}
		for col, v := range r {
			if s, ok := v.(string); ok && (strings.Contains(s, "alice") || strings.Contains(s, "cc-session-42")) {
				t.Fatalf("column %s holds the end user or session in the clear: %q", col, s)
			}
		}
	})
}

func TestPurgeAndDeleteOrg(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		clock := routingtest.NewClock(t0)
		s := pinsql.New(d.DB, clock.Now)
		bob := alice
		bob.User = "bob"
		other := alice
		other.OrgID = "org_2"
		p := routing.Pin{Model: "m", Turns: 1, Created: t0, Updated: t0}
		for _, put := range []struct {
			k   routing.PinKey
			ttl time.Duration
		}{{alice, time.Minute}, {bob, time.Hour}, {other, time.Hour}} {
			if err := s.Put(ctx, put.k, p, put.ttl); err != nil {
				t.Fatal(err)
			}
		}
		clock.Advance(2 * time.Minute)
		if n, err := s.Purge(ctx); err != nil || n != 1 {
			t.Fatalf("Purge = %d, %v; want 1 (alice's expired pin)", n, err)
		}
		if n, err := s.DeleteOrg(ctx, "org_1"); err != nil || n != 1 {
			t.Fatalf("DeleteOrg(org_1) = %d, %v; want 1 (bob)", n, err)
		}
		if _, ok, _ := s.Get(ctx, other); !ok {
			t.Fatal("org_2's pin deleted with org_1")
		}
		var count int64
		d.DB.Raw("SELECT count(*) FROM routing_pins").Scan(&count)
		if count != 1 {
			t.Fatalf("%d rows left, want 1", count)
		}
	})
}

func TestExpiredRowDeletedOnRead(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		clock := routingtest.NewClock(t0)
		s := pinsql.New(d.DB, clock.Now)
		if err := s.Put(ctx, alice, routing.Pin{Model: "m", Turns: 1, Created: t0, Updated: t0}, time.Minute); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
		if _, ok, err := s.Get(ctx, alice); ok || err != nil {
			t.Fatalf("Get at expiry = %v, %v; want miss", ok, err)
		}
		var count int64
		d.DB.Raw("SELECT count(*) FROM routing_pins").Scan(&count)
		if count != 0 {
			t.Fatalf("expired row still stored after Get (%d rows)", count)
		}
	})
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case int:
		return int64(x)
	case float64:
		return int64(x)
	}
	return -1
}

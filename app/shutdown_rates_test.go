package app

import (
	"context"
	"log/slog"
	"testing"
	"time"

	billingsql "github.com/heddle-gw/heddle/billing/sqlstore"
)

// TestCloseStoresFlushesRateCounters: the key rate-limit counts a replica
// made since its last sync reach the shared store at shutdown (closeStores,
// before the database closes), as the budget spend does: a restarted or
// other replica sees them, rather than the key getting them again.
func TestCloseStoresFlushesRateCounters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg, err := LoadConfig(func(k string) string {
		return map[string]string{"HEDDLE_DATA_DIR": dir, "HEDDLE_SPEND_SYNC_INTERVAL": "1h", "HEDDLE_SPEND_STALE_AFTER": "2h"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := wire(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i := range 3 {
		if ok, _, err := c.rates.Allow(ctx, "key_shutdown", 10, now); err != nil || !ok {
			t.Fatalf("Allow %d = %v, %v", i, ok, err)
		}
	}
	if err := c.rates.AddTokens(ctx, "key_shutdown", 120, now); err != nil {
		t.Fatal(err)
	}
	c.closeStores()

	db, _, err := OpenDatabase(ctx, "", dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if s, err := db.DB(); err == nil {
			s.Close()
		}
	})
	store := billingsql.NewRateCounters(db)
	start := now.UTC().Truncate(time.Minute)
	if n, err := store.Spent(ctx, "r:key_shutdown", start); err != nil || n != 3 {
		t.Errorf("requests in rate_counters after shutdown = %d, %v; want 3", n, err)
	}
	if n, err := store.Spent(ctx, "t:key_shutdown", start); err != nil || n != 120 {
		t.Errorf("tokens in rate_counters after shutdown = %d, %v; want 120", n, err)
	}
}

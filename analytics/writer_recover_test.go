package analytics_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// slowRetryConfig makes the inserter's backoff an hour long, so only Retry or
// ErrUnavailable can make anything happen within a test.
func slowRetryConfig(dir string) analytics.WriterConfig {
	cfg := fastConfig(dir)
	cfg.MaxRetries, cfg.RetryBase, cfg.RetryMax = 1000, time.Hour, time.Hour
	return cfg
}

func TestWriterUnavailableStoreSpillsAtOnceAndRetryReplays(t *testing.T) {
	store := analyticstest.NewStore()
	store.FailWith(fmt.Errorf("%w: connecting", analytics.ErrUnavailable))
	dir := t.TempDir()
	w := start(t, store, slowRetryConfig(dir))

	a, r := feed(w, 0, 10)
	testwait.Until(t, 10*time.Second, "rows spilled after one failure", func() bool {
		s := w.Stats()
		return s.Segments > 0 && s.Queued == 0
	})
	if s := w.Stats(); s.Failures != 1 || s.Inserted != 0 || s.Dropped != 0 {
		t.Fatalf("while unavailable: %+v", s)
	}

	store.FailWith(nil)
	w.Retry()
	testwait.Until(t, 10*time.Second, "replay after Retry", func() bool { return w.Stats().Segments == 0 })
	closeWriter(t, w, 5*time.Second)
	assertDelivered(t, store, a, r)
	if s := w.Stats(); s.Inserted != 20 || s.SpilledBytes != 0 {
		t.Errorf("after replay: %+v", s)
	}
}

func TestWriterRetryCutsBackoffShort(t *testing.T) {
	store := analyticstest.NewStore()
	store.FailWith(errDown)
	w := start(t, store, slowRetryConfig(t.TempDir()))

	a, r := feed(w, 0, 10)
	testwait.Until(t, 10*time.Second, "first failed insert", func() bool { return w.Stats().Failures == 1 })
	store.FailWith(nil)
	w.Retry()
	testwait.Until(t, 10*time.Second, "insert after Retry", func() bool { return w.Stats().Inserted == 20 })
	closeWriter(t, w, 5*time.Second)
	assertDelivered(t, store, a, r)
	if s := w.Stats(); s.Segments != 0 || s.Dropped != 0 {
		t.Errorf("no spill expected for a plain error within MaxRetries: %+v", s)
	}
}

package analytics_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
)

func TestWriterStartCancelSpillsQueue(t *testing.T) {
	dir := t.TempDir()
	store := analyticstest.NewStore()
	store.Block()
	ctx, cancel := context.WithCancel(context.Background())
	cfg := fastConfig(dir)
	cfg.InsertTimeout = time.Hour
	w := analytics.NewWriter(store, cfg, nil)
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	a, r := feed(w, 0, 200)
	cancel()
	closeWriter(t, w, 5*time.Second)
	w.RecordAttempt(analytics.Attempt{EventID: "late"})
	if s := w.Stats(); s.Dropped != 1 || s.Inserted != 0 || s.Segments == 0 {
		t.Fatalf("stats after cancel: %+v", s)
	}
	store.Unblock()

	up := analyticstest.NewStore()
	w2 := start(t, up, fastConfig(dir))
	closeWriter(t, w2, 5*time.Second)
	assertDelivered(t, up, a, r)
}

func TestWriterLifecycleErrors(t *testing.T) {
	store := analyticstest.NewStore()
	w := start(t, store, fastConfig(t.TempDir()))
	if err := w.Start(context.Background()); !errors.Is(err, analytics.ErrWriterStarted) {
		t.Errorf("second Start: got %v, want ErrWriterStarted", err)
	}
	closeWriter(t, w, time.Second)

	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	bad := analytics.NewWriter(store, fastConfig(filepath.Join(file, "spill")), nil)
	if err := bad.Start(context.Background()); !errors.Is(err, analytics.ErrSpill) {
		t.Errorf("Start over an unusable dir: got %v, want ErrSpill", err)
	}

	idle := analytics.NewWriter(store, fastConfig(""), nil)
	idle.RecordRequest(analytics.Request{EventID: "x"})
	if err := idle.Close(context.Background()); err == nil {
		t.Error("Close before Start with queued rows: want an error")
	}
	if s := idle.Stats(); s.Dropped != 1 {
		t.Errorf("dropped: got %d, want 1", s.Dropped)
	}

	cfg := analytics.WriterConfig{QueueSize: -1, RetryMax: -time.Second}
	if err := cfg.Validate(); err == nil {
		t.Error("Validate accepted negative settings")
	}
	if err := (analytics.WriterConfig{}).Validate(); err != nil {
		t.Errorf("Validate of zero config: %v", err)
	}
}

func TestWriterStartAfterClose(t *testing.T) {
	w := analytics.NewWriter(analyticstest.NewStore(), fastConfig(""), nil)
	if err := w.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := w.Start(context.Background()); !errors.Is(err, analytics.ErrWriterClosed) {
		t.Errorf("Start after Close: got %v, want ErrWriterClosed", err)
	}
	if err := w.Close(context.Background()); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

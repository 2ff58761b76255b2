package app

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/internal/testwait"
)

type countingJanitor struct {
	sweeps atomic.Int64
	fail   bool
}

func (j *countingJanitor) DeleteExpired(context.Context) (int64, error) {
	j.sweeps.Add(1)
	if j.fail {
		return 0, errors.New("store down")
	}
	return 1, nil
}

// TestContentJanitor: one sweep at start, one per interval, a failed sweep
// does not stop it, and it returns when ctx ends.
func TestContentJanitor(t *testing.T) {
	for _, fail := range []bool{false, true} {
		j := &countingJanitor{fail: fail}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			runContentJanitor(ctx, j, 10*time.Millisecond, slog.New(slog.DiscardHandler))
			close(done)
		}()
		testwait.Until(t, time.Minute, "three janitor sweeps", func() bool { return j.sweeps.Load() >= 3 })
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("janitor did not stop with its context")
		}
		if n := j.sweeps.Load(); n < 3 {
			t.Fatalf("fail=%v: %d sweeps, want at least 3", fail, n)
		}
	}
}

func TestLoadConfigContentJanitor(t *testing.T) {
	c, err := LoadConfig(env(nil))
	if err != nil || c.ContentJanitorInterval != 5*time.Minute {
		t.Fatalf("default interval %v, %v", c.ContentJanitorInterval, err)
	}
	c, err = LoadConfig(env(map[string]string{"HEDDLE_CONTENT_JANITOR_INTERVAL": "250ms"}))
	if err != nil || c.ContentJanitorInterval != 250*time.Millisecond {
		t.Fatalf("interval %v, %v", c.ContentJanitorInterval, err)
	}
	if _, err := LoadConfig(env(map[string]string{"HEDDLE_CONTENT_JANITOR_INTERVAL": "0s"})); err == nil {
		t.Fatal("a zero interval was accepted")
	}
}

package app

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/analytics"
)

// TestWireRefusesSpillDirInUse: a second gateway wired on the spill
// directory of a running one fails to start with the directory and the
// variable to change in its error; once the first closed its stores, the
// same configuration starts.
func TestWireRefusesSpillDirInUse(t *testing.T) {
	ctx := context.Background()
	spill := filepath.Join(t.TempDir(), "spill")
	config := func() Config {
		vars := map[string]string{"HEDDLE_DATA_DIR": t.TempDir(), "HEDDLE_SPILL_DIR": spill}
		cfg, err := LoadConfig(func(k string) string { return vars[k] })
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	first, err := wire(ctx, config(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	cfg := config()
	_, err = wire(ctx, cfg, slog.New(slog.DiscardHandler))
	if !errors.Is(err, analytics.ErrSpillDirInUse) || !strings.Contains(err.Error(), spill) || !strings.Contains(err.Error(), "HEDDLE_SPILL_DIR") {
		t.Fatalf("second wire on %s: %v, want ErrSpillDirInUse naming it and HEDDLE_SPILL_DIR", spill, err)
	}
	first.closeStores()
	next, err := wire(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("wire after the first closed: %v", err)
	}
	next.closeStores()
}

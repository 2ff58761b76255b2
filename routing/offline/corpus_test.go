package offline

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/heddle-gw/heddle/routing/bundles"
)

var update = flag.Bool("update", false, "rewrite routing/bundles/default.json from the corpus")

// TestDefaultBundleReproducible retrains the default bundle from the corpus and
// compares it with the embedded file byte for byte (go test -update rewrites it).
func TestDefaultBundleReproducible(t *testing.T) {
	b, err := TrainDefault(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(filepath.Join("..", "bundles", "default.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(data, bundles.DefaultJSON) {
		t.Fatalf("retrained default bundle (%d bytes) differs from routing/bundles/default.json (%d bytes); run go test ./routing/offline -run TestDefaultBundleReproducible -update",
			len(data), len(bundles.DefaultJSON))
	}
}

// TestCorpusTasks: the corpus covers its ten task types with at least 25
// prompts each.
func TestCorpusTasks(t *testing.T) {
	samples, _, err := DefaultSamples()
	if err != nil {
		t.Fatal(err)
	}
	tasks := map[string]int{}
	for _, s := range samples {
		tasks[s.Task]++
	}
	if len(tasks) != 10 {
		t.Fatalf("corpus task types %v, want 10", tasks)
	}
	for task, n := range tasks {
		if n < 25 {
			t.Errorf("task %s has only %d prompts", task, n)
		}
	}
}

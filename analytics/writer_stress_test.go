package analytics_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
)

// TestWriterConcurrentRecordersThroughFlappingStore records from eight
// goroutines while the store goes down and up every few milliseconds: every
// row arrives exactly once, and each goroutine's rows arrive in the order it
// recorded them.
func TestWriterConcurrentRecordersThroughFlappingStore(t *testing.T) {
	store := analyticstest.NewStore()
	cfg := fastConfig(t.TempDir())
	cfg.MaxRetries = 1000 // the store's outages are short: retried, not spilled (the spill tests cover spilling)
	w := start(t, store, cfg)

	stop := make(chan struct{})
	var flapper sync.WaitGroup
	// The store starts down and flaps only once the writer has met the
	// outage, so every run exercises a failure whatever the load.
	store.FailWith(errDown)
	flapper.Go(func() {
		for w.Stats().Failures == 0 {
			select {
			case <-stop:
				store.FailWith(nil)
				return
			case <-time.After(time.Millisecond):
			}
		}
		for i := 1; ; i++ {
			select {
			case <-stop:
				store.FailWith(nil)
				return
			case <-time.After(3 * time.Millisecond):
			}
			if i%2 == 0 {
				store.FailWith(errDown)
			} else {
				store.FailWith(nil)
			}
		}
	})

	const writers, each = 8, 500
	var rec sync.WaitGroup
	for g := range writers {
		rec.Go(func() {
			for i := range each {
				w.RecordRequest(analytics.Request{EventID: fmt.Sprintf("g%d-%04d", g, i), OrgID: "org",
					Time: time.Unix(1_800_000_000, 0)})
				if i%50 == 0 {
					time.Sleep(time.Millisecond)
				}
			}
		})
	}
	rec.Wait()
	time.Sleep(20 * time.Millisecond)
	close(stop)
	flapper.Wait()
	closeWriter(t, w, 10*time.Second)

	got := requestIDs(store)
	if len(got) != writers*each {
		t.Fatalf("stored %d rows, want %d (stats %+v)", len(got), writers*each, w.Stats())
	}
	next := make([]int, writers)
	for _, id := range got {
		var g, i int
		if _, err := fmt.Sscanf(strings.Replace(id, "-", " ", 1), "g%d %d", &g, &i); err != nil {
			t.Fatalf("id %q: %v", id, err)
		}
		if i != next[g] {
			t.Fatalf("goroutine %d: row %d arrived when %d was due", g, i, next[g])
		}
		next[g]++
	}
	if s := w.Stats(); s.Dropped != 0 || s.Inserted != writers*each || s.Segments != 0 || s.Failures == 0 {
		t.Errorf("stats: %+v", s)
	}
}

package analytics

import (
	"testing"
	"time"
)

// TestJournalCommitReusesItsFrameBuffer: writing a group to the journal
// encodes it into a buffer the journal keeps, so a group costs no
// allocation once that buffer fits it.
func TestJournalCommitReusesItsFrameBuffer(t *testing.T) {
	dir := t.TempDir()
	disk, err := openSpill(dir, 1<<20, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	j, _, err := recoverJournal(dir, disk)
	if err != nil {
		t.Fatal(err)
	}
	g := &batch{}
	for i := range 8 {
		g.Attempts = append(g.Attempts, Attempt{EventID: "a" + string(rune('0'+i)), Time: time.Now(), OrgID: "org", Model: "m"})
		g.Requests = append(g.Requests, Request{EventID: "r" + string(rune('0'+i)), Time: time.Now(), OrgID: "org", Status: 200})
	}
	if err := j.commit(g); err != nil { // creates the file, grows the buffer
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(50, func() {
		if err := j.commit(g); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("journal commit of a group: %.1f allocations, want 0", allocs)
	}
	j.mu.Lock()
	f := j.f
	j.mu.Unlock()
	_ = f.Close()
}

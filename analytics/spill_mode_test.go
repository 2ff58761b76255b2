package analytics

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSpillModes: with the common umask 0022, and over a directory an older
// version left 0755, the spill directory is 0700 and its segments 0600.
func TestSpillModes(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	for _, existing := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "spill")
		if existing {
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		s, err := openSpill(dir, 300, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"1", "2", "3"} {
			if err := s.append(idBatch(id)); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.prepend([]*batch{idBatch("0")}); err != nil {
			t.Fatal(err)
		}
		s.close()
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("existing=%v: spill dir mode %v (%v)", existing, fi.Mode().Perm(), err)
		}
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) < 2 {
			t.Fatalf("segments: %d (%v)", len(entries), err)
		}
		for _, e := range entries {
			fi, err := e.Info()
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("existing=%v: %s mode %v (%v)", existing, e.Name(), fi.Mode().Perm(), err)
			}
		}
	}
}

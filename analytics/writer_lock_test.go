package analytics_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// startErr starts a Writer on dir that is expected to fail, and returns the
// error (the Writer is closed).
func startErr(t *testing.T, dir string) error {
	t.Helper()
	w := analytics.NewWriter(analyticstest.NewStore(), fastConfig(dir), nil)
	err := w.Start(context.Background())
	if err == nil {
		closeWriter(t, w, 5*time.Second)
		return nil
	}
	if cerr := w.Close(context.Background()); cerr != nil {
		t.Errorf("Close after a failed Start: %v", cerr)
	}
	return err
}

// locked reports whether another open file holds dir's lock (a flock of
// its own, as another process would try).
func locked(t *testing.T, dir string) bool {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, ".lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil
}

// wantInUse fails unless err is ErrSpillDirInUse naming dir.
func wantInUse(t *testing.T, err error, dir string) {
	t.Helper()
	if !errors.Is(err, analytics.ErrSpillDirInUse) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("second Start on %s: %v, want ErrSpillDirInUse naming the directory", dir, err)
	}
}

// TestWriterSpillDirIsLocked: a second Writer on a directory in use fails
// at Start, without reading it (the first one's spill is not replayed by
// it); once the first one closed, or its context ended, a new one starts
// and replays what the first one left.
func TestWriterSpillDirIsLocked(t *testing.T) {
	for _, stop := range []string{"close", "cancel"} {
		t.Run(stop, func(t *testing.T) {
			dir := t.TempDir()
			down := analyticstest.NewStore()
			down.FailWith(fmt.Errorf("%w: connecting", analytics.ErrUnavailable))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			w := analytics.NewWriter(down, fastConfig(dir), nil)
			if err := w.Start(ctx); err != nil {
				t.Fatal(err)
			}
			a, r := feed(w, 0, 10)
			testwait.Until(t, 10*time.Second, "rows spilled", func() bool { return w.Stats().Segments > 0 })

			second := analyticstest.NewStore()
			if !locked(t, dir) {
				t.Fatal("the directory of a running writer is not locked")
			}
			sw := analytics.NewWriter(second, fastConfig(dir), nil)
			wantInUse(t, sw.Start(context.Background()), dir)
			if n := len(second.Attempts()) + len(second.Requests()); n != 0 {
				t.Fatalf("the refused writer replayed %d rows of the first one's spill", n)
			}
			if err := sw.Close(context.Background()); err != nil {
				t.Fatalf("Close of the refused writer: %v", err)
			}

			if stop == "close" {
				closeWriter(t, w, 5*time.Second)
			} else {
				cancel()
				// The lock goes with the inserter, which a cancelled
				// context stops: no Close call is needed for it.
				testwait.Until(t, 10*time.Second, "the lock released after cancel", func() bool { return !locked(t, dir) })
			}
			up := analyticstest.NewStore()
			next := start(t, up, fastConfig(dir))
			wantInUse(t, startErr(t, dir), dir) // next holds it now
			closeWriter(t, next, 5*time.Second)
			assertDelivered(t, up, a, r)
		})
	}
}

// TestWriterSpillDirLockNeedsDirectory: the lock is taken on a directory that
// Start creates; an impossible one is still ErrSpill.
func TestWriterSpillDirLockNeedsDirectory(t *testing.T) {
	file := t.TempDir() + "/file"
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := startErr(t, file+"/spill")
	if !errors.Is(err, analytics.ErrSpill) || errors.Is(err, analytics.ErrSpillDirInUse) {
		t.Fatalf("Start under a file: %v, want ErrSpill", err)
	}
	dir := t.TempDir() + "/new/spill"
	w := start(t, analyticstest.NewStore(), fastConfig(dir))
	wantInUse(t, startErr(t, dir), dir)
	closeWriter(t, w, 5*time.Second)
}

// lockHolderEnv names the directory TestLockHolderProcess locks when the
// test binary runs it as a child process.
const lockHolderEnv = "HEDDLE_TEST_LOCK_HOLDER_DIR"

// TestLockHolderProcess is the child of TestWriterLockDiesWithProcess (it
// does nothing in a normal run): a Writer on the directory with a hung
// store journals 100 rows of each kind, prints "ready" and waits to be
// killed.
func TestLockHolderProcess(t *testing.T) {
	dir := os.Getenv(lockHolderEnv)
	if dir == "" {
		t.Skip("run as a child of TestWriterLockDiesWithProcess")
	}
	hung := analyticstest.NewStore()
	hung.Block()
	w := analytics.NewWriter(hung, journalConfig(dir), nil)
	if err := w.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	feed(w, 0, 100)
	testwait.Until(t, 30*time.Second, "every row journaled", func() bool { return w.Stats().Journaled == 200 })
	fmt.Println("ready")
	select {} // until SIGKILL
}

// TestWriterLockDiesWithProcess: a process holding the directory (its
// rows in the journal only) locks out a Writer of another process; killed
// with SIGKILL it leaves the lock free, and the next Writer recovers its
// journal.
func TestWriterLockDiesWithProcess(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHolderProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), lockHolderEnv+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "ready" {
				ready <- true
				return
			}
		}
		ready <- false
	}()
	if !<-ready {
		t.Fatal("the lock holder exited before it was ready")
	}
	wantInUse(t, startErr(t, dir), dir)

	if err := cmd.Process.Signal(os.Kill); err != nil {
		t.Fatal(err)
	}
	killed = true
	// Wait returns once the child is reaped: its files, and its flock, are
	// gone.
	if err := cmd.Wait(); err == nil {
		t.Fatal("the killed lock holder exited 0")
	}
	store := analyticstest.NewStore()
	next := start(t, store, fastConfig(dir))
	closeWriter(t, next, 10*time.Second)
	var a, r []string
	for i := range 100 {
		a, r = append(a, fmt.Sprintf("a%06d", i)), append(r, fmt.Sprintf("r%06d", i))
	}
	assertDelivered(t, store, a, r)
}

// stuckStore is a store whose inserts ignore their context: each waits
// until release is closed, then fails as unavailable.
type stuckStore struct {
	entered chan struct{} // closed by the first insert
	once    sync.Once
	release chan struct{}
}

func (s *stuckStore) wait() error {
	s.once.Do(func() { close(s.entered) })
	<-s.release
	return fmt.Errorf("%w: stuck", analytics.ErrUnavailable)
}

func (s *stuckStore) InsertAttempts(context.Context, []analytics.Attempt) error { return s.wait() }
func (s *stuckStore) InsertRequests(context.Context, []analytics.Request) error { return s.wait() }

// TestWriterLockOutlivesStuckInserter: a Close that gives up on an inserter
// stuck in a store call does not release the directory, since the inserter
// still spills its batch there when the call returns; the lock goes after
// that, and the next Writer replays every row.
func TestWriterLockOutlivesStuckInserter(t *testing.T) {
	dir := t.TempDir()
	stuck := &stuckStore{entered: make(chan struct{}), release: make(chan struct{})}
	released := false
	defer func() {
		if !released {
			close(stuck.release)
		}
	}()
	w := analytics.NewWriter(stuck, fastConfig(dir), nil)
	if err := w.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	a, r := feed(w, 0, 10)
	<-stuck.entered
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := w.Close(ctx); err == nil {
		t.Fatal("Close returned nil with the inserter stuck in the store")
	}
	if !locked(t, dir) {
		t.Fatal("the lock was released while the inserter was still running")
	}
	wantInUse(t, startErr(t, dir), dir)

	close(stuck.release)
	released = true
	testwait.Until(t, 10*time.Second, "the lock released once the inserter stopped", func() bool { return !locked(t, dir) })
	up := analyticstest.NewStore()
	closeWriter(t, start(t, up, fastConfig(dir)), 5*time.Second)
	assertDelivered(t, up, a, r)
}

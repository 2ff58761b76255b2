package analytics

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockName is the lock file a Writer holds in its SpillDir.
const lockName = ".lock"

// dirLock is the exclusive advisory lock (flock) a Writer holds on its
// SpillDir from Start until its inserter has finished with the directory:
// two Writers (two processes) on one directory would replay each other's
// journal and spill segments and write over them. The kernel releases a
// flock when its holder dies, kill -9 included, so a crash never leaves the
// directory locked for the next start.
type dirLock struct{ f *os.File }

// lockDir creates dir (0700) if needed and takes its lock without waiting.
// It fails with ErrSpillDirInUse when another open file (another process,
// or another Writer in this one) holds it, with ErrSpill when the lock file
// cannot be opened or locked.
func lockDir(dir string) (*dirLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: create %s: %w", ErrSpill, dir, err)
	}
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%w: open lock file: %w", ErrSpill, err)
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return &dirLock{f: f}, nil
	}
	_ = f.Close()
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, fmt.Errorf("%w: %s (%s is locked)", ErrSpillDirInUse, dir, path)
	}
	return nil, fmt.Errorf("%w: lock %s: %w", ErrSpill, path, err)
}

// release unlocks the directory (closing the file drops the flock). The
// lock file stays: removing it could let a third process lock a new file
// of that name while another still holds the old one. Nil-safe.
func (l *dirLock) release() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Close()
	l.f = nil
}

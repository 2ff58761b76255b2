package app

import (
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestDataDirModes: with the common umask 0022 forced, a fresh data dir and
// one an older version left world-readable both end with the directory 0700
// and the database, its -wal and -shm files, the dev keyset and the console
// secret 0600.
func TestDataDirModes(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	for _, existing := range []bool{false, true} {
		t.Run(map[bool]string{false: "fresh", true: "existing"}[existing], func(t *testing.T) { dataDirCase(t, existing) })
	}
}

func dataDirCase(t *testing.T, existing bool) {
	dir := filepath.Join(t.TempDir(), "data")
	if existing {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{sqliteFile, "session-secret"} {
			body := ""
			if name == "session-secret" {
				body = "an-old-secret-that-is-long-enough-to-be-kept-0123456789\n"
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	checkDataDirModes(t, dir)
}

func checkDataDirModes(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	db, dialect, err := OpenDatabase(ctx, "", dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := db.DB()
	t.Cleanup(func() { sqlDB.Close() })
	// A write, so that SQLite has created its -wal and -shm files.
	if err := MigrateDatabase(ctx, db, dialect); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Env: "development", DataDir: dir}
	if _, _, err := masterKeysetSource(cfg, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	if _, err := sessionSecret(cfg, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	want := map[string]fs.FileMode{
		".": 0o700, sqliteFile: 0o600, sqliteFile + "-wal": 0o600, sqliteFile + "-shm": 0o600,
		"master-keyset.json": 0o600, "session-secret": 0o600,
	}
	for name, mode := range want {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v", name, fi.Mode().Perm(), mode)
		}
	}
	// Nothing else in the data dir is readable by others either.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v is open to group or others", e.Name(), fi.Mode().Perm())
		}
	}
}

package app

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/heddle-gw/heddle/tenancy"
)

// masterKeysetSource picks the KEK source: the inline keyset, the keyset
// file, or (development only) a generated file in the data dir.
func masterKeysetSource(cfg Config, logger *slog.Logger) (tenancy.KeysetSource, string, error) {
	if cfg.MasterKeyset != "" {
		h, err := tenancy.ParseMasterKeyset([]byte(cfg.MasterKeyset))
		if err != nil {
			return nil, "", fmt.Errorf("HEDDLE_MASTER_KEYSET: %w", err)
		}
		return tenancy.StaticKeyset(h), "", nil
	}
	path := cfg.MasterKeysetFile
	if path == "" {
		if cfg.Production() {
			return nil, "", errors.New("app: a master keyset is required in production")
		}
		path = filepath.Join(cfg.DataDir, "master-keyset.json")
		if err := privateDir(cfg.DataDir); err != nil {
			return nil, "", err
		}
		created, err := tenancy.EnsureDevKeyset(path)
		if err != nil {
			return nil, "", fmt.Errorf("app: dev master keyset: %w", err)
		}
		// A keyset an older version left readable is tightened too.
		if err := os.Chmod(path, 0o600); err != nil {
			return nil, "", fmt.Errorf("app: dev master keyset: %w", err)
		}
		if created {
			logger.Warn("generated a development master keyset; set HEDDLE_MASTER_KEYSET_FILE in production",
				"path", path, "mode", "0600")
		}
	}
	if _, err := tenancy.ReadMasterKeysetFile(path); err != nil {
		return nil, "", fmt.Errorf("HEDDLE_MASTER_KEYSET_FILE: %w", err)
	}
	return tenancy.FileKeyset(path), path, nil
}

// sessionSecret returns the configured console signing secret or, in
// development, one generated once and kept in the data dir (mode 0600) so
// console sessions survive a restart.
func sessionSecret(cfg Config, logger *slog.Logger) ([]byte, error) {
	if cfg.SessionSecret != "" {
		return []byte(cfg.SessionSecret), nil
	}
	if err := privateDir(cfg.DataDir); err != nil {
		return nil, err
	}
	path := filepath.Join(cfg.DataDir, "session-secret")
	b, err := os.ReadFile(path)
	if err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		// A secret an older version left readable is tightened.
		if err := os.Chmod(path, 0o600); err != nil {
			return nil, fmt.Errorf("app: session secret: %w", err)
		}
		return []byte(strings.TrimSpace(string(b))), nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("app: session secret: %w", err)
	}
	raw := make([]byte, 48)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("app: session secret: %w", err)
	}
	secret := base64.RawURLEncoding.EncodeToString(raw)
	if err := os.WriteFile(path, []byte(secret+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("app: session secret: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return nil, fmt.Errorf("app: session secret: %w", err)
	}
	logger.Warn("generated a development console session secret; set HEDDLE_SESSION_SECRET in production", "path", path)
	return []byte(secret), nil
}

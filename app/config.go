package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Config is everything Heddle reads from its environment. Every field names
// its variable and default; secrets also accept a _FILE variant.
type Config struct {
	Env               string        // HEDDLE_ENV: development (default) or production
	Addr              string        // HEDDLE_ADDR: listen address, default ":8080"
	DataDir           string        // HEDDLE_DATA_DIR: default "./data"
	DatabaseURL       string        // HEDDLE_DATABASE_URL: Postgres URL; empty = SQLite in DataDir
	ClickHouseURL     string        // HEDDLE_CLICKHOUSE_URL: empty = embedded analytics store
	RedisURL          string        // HEDDLE_REDIS_URL: optional
	MasterKeyset      string        // HEDDLE_MASTER_KEYSET(_FILE): Tink JSON keyset (KEK)
	MasterKeysetFile  string        // HEDDLE_MASTER_KEYSET_FILE: path; dev default DataDir/master-keyset.json
	SessionSecret     string        // HEDDLE_SESSION_SECRET(_FILE): console JWT signing secret
	CatalogFile       string        // HEDDLE_CATALOG_FILE: operator override of the catalog
	MaxBodyBytes      int           // HEDDLE_MAX_BODY_BYTES: default 20 MiB
	AllowPrivate      bool          // HEDDLE_ALLOW_PRIVATE_UPSTREAMS: allow loopback/private upstream URLs
	ShutdownTimeout   time.Duration // HEDDLE_SHUTDOWN_TIMEOUT: default 30s
	LogLevel          string        // HEDDLE_LOG_LEVEL: debug, info (default), warn, error
	CookieSecure      bool          // HEDDLE_COOKIE_SECURE: default true in production
	FirstByteTimeout  time.Duration // HEDDLE_FIRST_BYTE_TIMEOUT: default 30s
	StreamIdleTimeout time.Duration // HEDDLE_STREAM_IDLE_TIMEOUT: default 60s
	MaxAttempts       int           // HEDDLE_MAX_ATTEMPTS: default 3
	AdminEmail        string        // HEDDLE_ADMIN_EMAIL: first admin created on an empty database, default admin@localhost
	SpillDir          string        // HEDDLE_SPILL_DIR: default DataDir/spill
	DefaultAlpha      float64       // HEDDLE_DEFAULT_ALPHA: quality/cost dial when a key sets none, default 0.6
	BaselineModel     string        // HEDDLE_BASELINE_MODEL: savings baseline of "auto" turns, default claude-sonnet-4-5
	EmbedTimeout      time.Duration // HEDDLE_EMBED_TIMEOUT: routing embed timeout, default 200ms
	CacheDisabled     bool          // HEDDLE_CACHE_DISABLED: turn the response cache off
	CacheTTL          time.Duration // HEDDLE_CACHE_TTL: default 1h
	CacheThreshold    float64       // HEDDLE_CACHE_THRESHOLD: semantic-tier cosine, default 0.97
}

// Production reports whether Heddle runs in production mode.
func (c Config) Production() bool { return c.Env == "production" }

// LoadConfig reads the configuration through getenv, validates it and returns
// every problem at once.
func LoadConfig(getenv func(string) string) (Config, error) {
	r := reader{getenv: getenv}
	c := Config{
		Env:               r.str("HEDDLE_ENV", "development"),
		Addr:              r.str("HEDDLE_ADDR", ":8080"),
		DataDir:           r.str("HEDDLE_DATA_DIR", "./data"),
		DatabaseURL:       r.secret("HEDDLE_DATABASE_URL"),
		ClickHouseURL:     r.secret("HEDDLE_CLICKHOUSE_URL"),
		RedisURL:          r.secret("HEDDLE_REDIS_URL"),
		MasterKeyset:      r.str("HEDDLE_MASTER_KEYSET", ""),
		MasterKeysetFile:  r.str("HEDDLE_MASTER_KEYSET_FILE", ""),
		SessionSecret:     r.secret("HEDDLE_SESSION_SECRET"),
		CatalogFile:       r.str("HEDDLE_CATALOG_FILE", ""),
		MaxBodyBytes:      r.int("HEDDLE_MAX_BODY_BYTES", 20<<20),
		AllowPrivate:      r.bool("HEDDLE_ALLOW_PRIVATE_UPSTREAMS", false),
		ShutdownTimeout:   r.duration("HEDDLE_SHUTDOWN_TIMEOUT", 30*time.Second),
		LogLevel:          r.str("HEDDLE_LOG_LEVEL", "info"),
		FirstByteTimeout:  r.duration("HEDDLE_FIRST_BYTE_TIMEOUT", 30*time.Second),
		StreamIdleTimeout: r.duration("HEDDLE_STREAM_IDLE_TIMEOUT", 60*time.Second),
		MaxAttempts:       r.int("HEDDLE_MAX_ATTEMPTS", 3),
		AdminEmail:        r.str("HEDDLE_ADMIN_EMAIL", "admin@localhost"),
		SpillDir:          r.str("HEDDLE_SPILL_DIR", ""),
		DefaultAlpha:      r.float("HEDDLE_DEFAULT_ALPHA", 0.6),
		BaselineModel:     r.str("HEDDLE_BASELINE_MODEL", "claude-sonnet-4-5"),
		EmbedTimeout:      r.duration("HEDDLE_EMBED_TIMEOUT", 200*time.Millisecond),
		CacheDisabled:     r.bool("HEDDLE_CACHE_DISABLED", false),
		CacheTTL:          r.duration("HEDDLE_CACHE_TTL", time.Hour),
		CacheThreshold:    r.float("HEDDLE_CACHE_THRESHOLD", 0.97),
	}
	c.CookieSecure = r.bool("HEDDLE_COOKIE_SECURE", c.Production())
	if c.SpillDir == "" {
		c.SpillDir = filepath.Join(c.DataDir, "spill")
	}
	errs := r.errs
	switch c.Env {
	case "development", "production":
	default:
		errs = append(errs, fmt.Errorf("HEDDLE_ENV: %q is not development or production", c.Env))
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("HEDDLE_LOG_LEVEL: %q is not debug, info, warn or error", c.LogLevel))
	}
	if c.MaxBodyBytes < 1024 {
		errs = append(errs, fmt.Errorf("HEDDLE_MAX_BODY_BYTES: %d is below 1024", c.MaxBodyBytes))
	}
	if c.MaxAttempts < 1 || c.MaxAttempts > 10 {
		errs = append(errs, fmt.Errorf("HEDDLE_MAX_ATTEMPTS: %d is not within 1..10", c.MaxAttempts))
	}
	if c.CacheThreshold <= 0 || c.CacheThreshold > 1 {
		errs = append(errs, fmt.Errorf("HEDDLE_CACHE_THRESHOLD: %v is not within (0, 1]", c.CacheThreshold))
	}
	if c.DefaultAlpha < 0 || c.DefaultAlpha > 1 {
		errs = append(errs, fmt.Errorf("HEDDLE_DEFAULT_ALPHA: %v is not within 0..1", c.DefaultAlpha))
	}
	if c.MasterKeyset != "" && c.MasterKeysetFile != "" {
		errs = append(errs, errors.New("HEDDLE_MASTER_KEYSET and HEDDLE_MASTER_KEYSET_FILE are both set; choose one"))
	}
	if c.Production() {
		if c.MasterKeyset == "" && c.MasterKeysetFile == "" {
			errs = append(errs, errors.New("HEDDLE_MASTER_KEYSET or HEDDLE_MASTER_KEYSET_FILE is required in production (no plaintext fallback)"))
		}
		if c.SessionSecret == "" {
			errs = append(errs, errors.New("HEDDLE_SESSION_SECRET or HEDDLE_SESSION_SECRET_FILE is required in production"))
		} else if len(c.SessionSecret) < 32 {
			errs = append(errs, errors.New("HEDDLE_SESSION_SECRET: must be at least 32 bytes"))
		}
		if c.AllowPrivate {
			errs = append(errs, errors.New("HEDDLE_ALLOW_PRIVATE_UPSTREAMS must not be set in production"))
		}
	}
	if len(errs) > 0 {
		return Config{}, fmt.Errorf("app: invalid configuration: %w", errors.Join(errs...))
	}
	return c, nil
}

// reader collects parse errors while reading variables.
type reader struct {
	getenv func(string) string
	errs   []error
}

func (r *reader) str(name, def string) string {
	if v := strings.TrimSpace(r.getenv(name)); v != "" {
		return v
	}
	return def
}

// secret reads NAME, or the file named by NAME_FILE (trailing newline trimmed).
func (r *reader) secret(name string) string {
	v, file := r.getenv(name), r.getenv(name+"_FILE")
	if v != "" && file != "" {
		r.errs = append(r.errs, fmt.Errorf("%s and %s_FILE are both set; choose one", name, name))
		return ""
	}
	if file == "" {
		return strings.TrimSpace(v)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s_FILE: %w", name, err))
		return ""
	}
	return strings.TrimRight(string(b), "\r\n")
}

func (r *reader) int(name string, def int) int {
	v := r.getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s: %q is not an integer", name, v))
		return def
	}
	return n
}

func (r *reader) float(name string, def float64) float64 {
	v := r.getenv(name)
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s: %q is not a number", name, v))
		return def
	}
	return f
}

func (r *reader) bool(name string, def bool) bool {
	v := r.getenv(name)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s: %q is not a boolean", name, v))
		return def
	}
	return b
}

func (r *reader) duration(name string, def time.Duration) time.Duration {
	v := r.getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d <= 0 {
		r.errs = append(r.errs, fmt.Errorf("%s: %q is not a positive duration", name, v))
		return def
	}
	return d
}

package app

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
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
	UpstreamTransport string        // HEDDLE_UPSTREAM_TRANSPORT: fasthttp (default) or nethttp
	TrustedProxies    []string      // HEDDLE_TRUSTED_PROXIES: comma-separated IPs/CIDRs of the load balancers
	ProxyHeader       string        // HEDDLE_PROXY_HEADER: the client-address header they set (default X-Real-IP)
	OrgsPerHour       int           // HEDDLE_ORGS_PER_HOUR: organisations one client address may create per hour (default 10)
	LoginsPerMinute   int           // HEDDLE_LOGINS_PER_MINUTE: sign-up and log-in attempts per client address per minute (default 30)
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
	// Embedder is HEDDLE_EMBEDDER: "" (default: lexical-v1 bundles only) or
	// an embedder spec, "wordvec:FILE" or "hugot:DIR", that organisation
	// bundles trained with it route with.
	Embedder       string
	CacheDisabled  bool          // HEDDLE_CACHE_DISABLED: turn the response cache off
	CacheTTL       time.Duration // HEDDLE_CACHE_TTL: default 1h
	CacheThreshold float64       // HEDDLE_CACHE_THRESHOLD: semantic-tier cosine, default 0.97
	// CacheSemantic is HEDDLE_CACHE_SEMANTIC, "off" (default) or "on": the
	// semantic cache tier. Off, the cache has its exact tier only and never
	// embeds. With lexical-v1 the tier does not pay (routing/testdata/
	// README.md); turn it on for an embedder measured with `heddle bundle
	// cache-eval`.
	CacheSemantic string
	// OTLPEndpoint is HEDDLE_OTLP_ENDPOINT: the OTLP/HTTP (protobuf) base URL
	// traces go to, e.g. http://127.0.0.1:4318 (/v1/traces is appended when
	// the URL has no path); empty turns tracing off.
	OTLPEndpoint string
	// OTLPHeaders is HEDDLE_OTLP_HEADERS(_FILE): k=v,k=v sent with every
	// export (values may be percent-encoded). Secret: never logged.
	OTLPHeaders map[string]string
	// TraceSampleRatio is HEDDLE_TRACE_SAMPLE_RATIO: the share of new traces
	// recorded, 0..1, default 1; an incoming traceparent's decision is kept.
	TraceSampleRatio float64
	// ContentJanitorInterval is HEDDLE_CONTENT_JANITOR_INTERVAL: how often
	// expired stored content (SPEC 8) is deleted, default 5m.
	ContentJanitorInterval time.Duration
	// DebugAddr is HEDDLE_DEBUG_ADDR: the operator listener serving
	// /debug/pprof/, e.g. 127.0.0.1:6060; empty (default) serves none. It is
	// never the public listener.
	DebugAddr string
	// Hosted billing (issue 12): HEDDLE_OPERATOR_EMAIL is the signed-up user
	// granted the operator role at start;
	// HEDDLE_LOW_BALANCE_MICROS the prepaid balance below which an
	// organisation is alerted (0 none, default 1000000 = $1);
	// HEDDLE_LOW_BALANCE_WEBHOOK a URL the alert is POSTed to, signed with
	// HEDDLE_LOW_BALANCE_WEBHOOK_SECRET(_FILE) (HMAC-SHA256).
	OperatorEmail           string
	LowBalanceMicros        int
	LowBalanceWebhook       string
	LowBalanceWebhookSecret string
	// Capacity is the concurrency caps and the spend reconciliation
	// (config_capacity.go).
	Capacity CapacityConfig
	// TrainingWorkers is HEDDLE_TRAINING_WORKERS: bundle trainings this
	// replica runs at once (default 1; each takes a core).
	TrainingWorkers int
	// TrainingTimeout is HEDDLE_TRAINING_TIMEOUT: a training job's deadline
	// from its start (default 15m).
	TrainingTimeout time.Duration
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
		UpstreamTransport: r.str("HEDDLE_UPSTREAM_TRANSPORT", transportFastHTTP),
		TrustedProxies:    splitList(r.str("HEDDLE_TRUSTED_PROXIES", "")),
		ProxyHeader:       r.str("HEDDLE_PROXY_HEADER", "X-Real-IP"),
		OrgsPerHour:       r.int("HEDDLE_ORGS_PER_HOUR", 10),
		LoginsPerMinute:   r.int("HEDDLE_LOGINS_PER_MINUTE", 30),
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
		Embedder:          r.str("HEDDLE_EMBEDDER", ""),
		CacheDisabled:     r.bool("HEDDLE_CACHE_DISABLED", false),
		CacheTTL:          r.duration("HEDDLE_CACHE_TTL", time.Hour),
		CacheThreshold:    r.float("HEDDLE_CACHE_THRESHOLD", 0.97),
		CacheSemantic:     r.str("HEDDLE_CACHE_SEMANTIC", "off"),
		OTLPEndpoint:      r.str("HEDDLE_OTLP_ENDPOINT", ""),
		TraceSampleRatio:  r.float("HEDDLE_TRACE_SAMPLE_RATIO", 1),
	}
	c.ContentJanitorInterval = r.duration("HEDDLE_CONTENT_JANITOR_INTERVAL", 5*time.Minute)
	c.DebugAddr = r.str("HEDDLE_DEBUG_ADDR", "")
	c.OperatorEmail = strings.ToLower(strings.TrimSpace(r.str("HEDDLE_OPERATOR_EMAIL", "")))
	c.LowBalanceMicros = r.int("HEDDLE_LOW_BALANCE_MICROS", 1_000_000)
	c.LowBalanceWebhook = r.str("HEDDLE_LOW_BALANCE_WEBHOOK", "")
	c.LowBalanceWebhookSecret = r.secret("HEDDLE_LOW_BALANCE_WEBHOOK_SECRET")
	c.Capacity = loadCapacity(&r)
	c.TrainingWorkers = r.int("HEDDLE_TRAINING_WORKERS", 1)
	c.TrainingTimeout = r.duration("HEDDLE_TRAINING_TIMEOUT", 15*time.Minute)
	c.CookieSecure = r.bool("HEDDLE_COOKIE_SECURE", c.Production())
	if c.SpillDir == "" {
		c.SpillDir = filepath.Join(c.DataDir, "spill")
	}
	headers := r.secret("HEDDLE_OTLP_HEADERS")
	errs := r.errs
	if hs, err := parseOTLPHeaders(headers); err != nil {
		errs = append(errs, err)
	} else {
		c.OTLPHeaders = hs
	}
	errs = append(errs, c.validateTracing()...)
	errs = append(errs, c.validateBilling()...)
	errs = append(errs, c.validateStoreURLs()...)
	errs = append(errs, c.Capacity.validate()...)
	if c.DebugAddr != "" {
		if _, _, err := net.SplitHostPort(c.DebugAddr); err != nil {
			errs = append(errs, fmt.Errorf("HEDDLE_DEBUG_ADDR: %q is not host:port", c.DebugAddr))
		} else if c.DebugAddr == c.Addr {
			errs = append(errs, errors.New("HEDDLE_DEBUG_ADDR must differ from HEDDLE_ADDR (pprof never shares the public listener)"))
		}
	}
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
	if c.CacheSemantic != "on" && c.CacheSemantic != "off" {
		errs = append(errs, fmt.Errorf("HEDDLE_CACHE_SEMANTIC: %q is not on or off", c.CacheSemantic))
	}
	if c.CacheThreshold <= 0 || c.CacheThreshold > 1 {
		errs = append(errs, fmt.Errorf("HEDDLE_CACHE_THRESHOLD: %v is not within (0, 1]", c.CacheThreshold))
	}
	if c.DefaultAlpha < 0 || c.DefaultAlpha > 1 {
		errs = append(errs, fmt.Errorf("HEDDLE_DEFAULT_ALPHA: %v is not within 0..1", c.DefaultAlpha))
	}
	if c.LoginsPerMinute < 1 {
		errs = append(errs, fmt.Errorf("HEDDLE_LOGINS_PER_MINUTE: %d; want at least 1", c.LoginsPerMinute))
	}
	if c.TrainingWorkers < 1 || c.TrainingWorkers > 64 {
		errs = append(errs, fmt.Errorf("HEDDLE_TRAINING_WORKERS: %d is not within 1..64", c.TrainingWorkers))
	}
	if c.TrainingTimeout < time.Second {
		errs = append(errs, fmt.Errorf("HEDDLE_TRAINING_TIMEOUT: %s is below 1s", c.TrainingTimeout))
	}
	if c.OrgsPerHour < 1 {
		errs = append(errs, fmt.Errorf("HEDDLE_ORGS_PER_HOUR: %d; want at least 1", c.OrgsPerHour))
	}
	for _, p := range c.TrustedProxies {
		if _, _, err := net.ParseCIDR(p); err != nil && net.ParseIP(p) == nil {
			errs = append(errs, fmt.Errorf("HEDDLE_TRUSTED_PROXIES: %q is neither an IP address nor a CIDR range", p))
		}
	}
	if c.UpstreamTransport != transportNetHTTP && c.UpstreamTransport != transportFastHTTP {
		errs = append(errs, fmt.Errorf("HEDDLE_UPSTREAM_TRANSPORT: %q; want %s or %s", c.UpstreamTransport, transportNetHTTP, transportFastHTTP))
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

// validateTracing checks the OTLP endpoint and the sample ratio.
func (c Config) validateTracing() []error {
	var errs []error
	if c.OTLPEndpoint != "" {
		// The URL may carry credentials: errors name its parts, not the URL.
		u, err := url.Parse(c.OTLPEndpoint)
		switch {
		case err != nil:
			errs = append(errs, errors.New("HEDDLE_OTLP_ENDPOINT: not a URL (want e.g. http://127.0.0.1:4318)"))
		case u.Scheme != "http" && u.Scheme != "https":
			errs = append(errs, fmt.Errorf("HEDDLE_OTLP_ENDPOINT: scheme %q is not http or https", u.Scheme))
		case u.Host == "":
			errs = append(errs, errors.New("HEDDLE_OTLP_ENDPOINT: the URL has no host"))
		case u.RawQuery != "" || u.Fragment != "":
			errs = append(errs, errors.New("HEDDLE_OTLP_ENDPOINT: the URL must not have a query or fragment"))
		}
	} else if len(c.OTLPHeaders) > 0 {
		errs = append(errs, errors.New("HEDDLE_OTLP_HEADERS is set but HEDDLE_OTLP_ENDPOINT is not"))
	}
	if c.TraceSampleRatio < 0 || c.TraceSampleRatio > 1 {
		errs = append(errs, fmt.Errorf("HEDDLE_TRACE_SAMPLE_RATIO: %v is not within 0..1", c.TraceSampleRatio))
	}
	return errs
}

// storeSchemes are the URL schemes each store variable accepts.
var storeSchemes = []struct {
	name    string
	schemes []string
	example string
}{
	{"HEDDLE_DATABASE_URL", []string{"postgres", "postgresql"}, "postgres://user:password@host:5432/heddle"},
	{"HEDDLE_CLICKHOUSE_URL", []string{"clickhouse", "tcp"}, "clickhouse://default@host:9000/heddle (the native protocol)"},
	{"HEDDLE_REDIS_URL", []string{"redis", "rediss", "unix"}, "redis://host:6379/0"},
}

// validateStoreURLs checks the store URLs' shape before any driver sees
// them, so a typo is one line naming the variable. The URLs carry passwords:
// errors name their parts, never the URL.
func (c Config) validateStoreURLs() []error {
	values := map[string]string{"HEDDLE_DATABASE_URL": c.DatabaseURL, "HEDDLE_CLICKHOUSE_URL": c.ClickHouseURL, "HEDDLE_REDIS_URL": c.RedisURL}
	var errs []error
	for _, s := range storeSchemes {
		v := values[s.name]
		if v == "" {
			continue
		}
		u, err := url.Parse(v)
		switch {
		case err != nil || u.Scheme == "":
			errs = append(errs, fmt.Errorf("%s: not a URL (want e.g. %s)", s.name, s.example))
		case !slices.Contains(s.schemes, u.Scheme):
			errs = append(errs, fmt.Errorf("%s: scheme %q is not %s (want e.g. %s)", s.name, u.Scheme, strings.Join(s.schemes, " or "), s.example))
		case u.Scheme != "unix" && u.Hostname() == "":
			errs = append(errs, fmt.Errorf("%s: the URL has no host (want e.g. %s)", s.name, s.example))
		}
	}
	return errs
}

// parseOTLPHeaders reads "k=v,k=v" (values may be percent-encoded). Errors
// name the entry by position, never its text: the values are secrets.
func parseOTLPHeaders(s string) (map[string]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[string]string{}
	var errs []error
	for i, entry := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(entry, "=")
		k = strings.TrimSpace(k)
		if !ok || !httpguts.ValidHeaderFieldName(k) {
			errs = append(errs, fmt.Errorf("HEDDLE_OTLP_HEADERS: entry %d is not name=value with a valid header name", i+1))
			continue
		}
		v, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil || !httpguts.ValidHeaderFieldValue(v) {
			errs = append(errs, fmt.Errorf("HEDDLE_OTLP_HEADERS: the value of %s (entry %d) is not a valid header value", k, i+1))
			continue
		}
		out[k] = v
	}
	return out, errors.Join(errs...)
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

// splitList splits a comma-separated list, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

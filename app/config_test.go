package app

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadConfigDefaults(t *testing.T) {
	c, err := LoadConfig(env(nil))
	if err != nil {
		t.Fatalf("LoadConfig: %v", err)
	}
	if c.Env != "development" || c.Addr != ":8080" || c.DataDir != "./data" || c.MaxBodyBytes != 20<<20 ||
		c.ShutdownTimeout != 30*time.Second || c.MaxAttempts != 3 || c.CookieSecure || c.SpillDir != filepath.Join("data", "spill") ||
		c.UpstreamTransport != transportFastHTTP {
		t.Fatalf("defaults = %+v", c)
	}
}

func TestLoadConfigFileSecrets(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "secret")
	if err := os.WriteFile(p, []byte("postgres://x@h/db\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(env(map[string]string{"HEDDLE_DATABASE_URL_FILE": p}))
	if err != nil {
		t.Fatal(err)
	}
	if c.DatabaseURL != "postgres://x@h/db" {
		t.Fatalf("DatabaseURL = %q", c.DatabaseURL)
	}
}

func TestLoadConfigJoinsEveryError(t *testing.T) {
	_, err := LoadConfig(env(map[string]string{
		"HEDDLE_ENV":                     "production",
		"HEDDLE_MAX_BODY_BYTES":          "lots",
		"HEDDLE_SHUTDOWN_TIMEOUT":        "-1s",
		"HEDDLE_LOG_LEVEL":               "loud",
		"HEDDLE_ALLOW_PRIVATE_UPSTREAMS": "true",
		"HEDDLE_REDIS_URL":               "redis://a",
		"HEDDLE_REDIS_URL_FILE":          "/nope",
		"HEDDLE_UPSTREAM_TRANSPORT":      "curl",
	}))
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{
		"HEDDLE_MAX_BODY_BYTES", "HEDDLE_SHUTDOWN_TIMEOUT", "HEDDLE_LOG_LEVEL",
		"HEDDLE_MASTER_KEYSET or HEDDLE_MASTER_KEYSET_FILE is required in production",
		"HEDDLE_SESSION_SECRET", "HEDDLE_ALLOW_PRIVATE_UPSTREAMS", "HEDDLE_REDIS_URL and HEDDLE_REDIS_URL_FILE",
		`HEDDLE_UPSTREAM_TRANSPORT: "curl"; want nethttp or fasthttp`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q:\n%v", want, err)
		}
	}
}

func TestLoadConfigTracing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "otlp-headers")
	if err := os.WriteFile(p, []byte("authorization=Bearer%20tok-123, x-tenant = heddle\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		env     map[string]string
		want    Config // only the tracing fields are compared
		wantErr []string
	}{
		{name: "off by default", env: nil, want: Config{TraceSampleRatio: 1}},
		{name: "endpoint, headers from a file, ratio", env: map[string]string{
			"HEDDLE_OTLP_ENDPOINT": "http://127.0.0.1:4318", "HEDDLE_OTLP_HEADERS_FILE": p, "HEDDLE_TRACE_SAMPLE_RATIO": "0.25",
		}, want: Config{OTLPEndpoint: "http://127.0.0.1:4318", TraceSampleRatio: 0.25,
			OTLPHeaders: map[string]string{"authorization": "Bearer tok-123", "x-tenant": "heddle"}}},
		{name: "inline headers", env: map[string]string{
			"HEDDLE_OTLP_ENDPOINT": "https://otel.example.com/otlp", "HEDDLE_OTLP_HEADERS": "api-key=abc",
		}, want: Config{OTLPEndpoint: "https://otel.example.com/otlp", TraceSampleRatio: 1, OTLPHeaders: map[string]string{"api-key": "abc"}}},
		{name: "every problem at once", env: map[string]string{
			"HEDDLE_OTLP_ENDPOINT": "grpc://collector:4317", "HEDDLE_TRACE_SAMPLE_RATIO": "1.5",
			"HEDDLE_OTLP_HEADERS": "api-key=sekrit-value,no-equals-sekrit,bad name=x",
		}, wantErr: []string{`HEDDLE_OTLP_ENDPOINT: scheme "grpc"`, "HEDDLE_TRACE_SAMPLE_RATIO: 1.5 is not within 0..1",
			"HEDDLE_OTLP_HEADERS: entry 2", "HEDDLE_OTLP_HEADERS: entry 3"}},
		{name: "headers without an endpoint", env: map[string]string{"HEDDLE_OTLP_HEADERS": "api-key=abc"},
			wantErr: []string{"HEDDLE_OTLP_HEADERS is set but HEDDLE_OTLP_ENDPOINT is not"}},
		{name: "endpoint without host, ratio not a number", env: map[string]string{
			"HEDDLE_OTLP_ENDPOINT": "http:///v1/traces", "HEDDLE_TRACE_SAMPLE_RATIO": "half",
		}, wantErr: []string{"HEDDLE_OTLP_ENDPOINT: the URL has no host", `HEDDLE_TRACE_SAMPLE_RATIO: "half" is not a number`}},
		{name: "inline and file", env: map[string]string{
			"HEDDLE_OTLP_ENDPOINT": "http://c:4318", "HEDDLE_OTLP_HEADERS": "a=b", "HEDDLE_OTLP_HEADERS_FILE": p,
		}, wantErr: []string{"HEDDLE_OTLP_HEADERS and HEDDLE_OTLP_HEADERS_FILE are both set"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LoadConfig(env(tt.env))
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatal("want an error")
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error does not mention %q:\n%v", want, err)
					}
				}
				if strings.Contains(err.Error(), "sekrit") {
					t.Errorf("error leaks a header value:\n%v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadConfig: %v", err)
			}
			if c.OTLPEndpoint != tt.want.OTLPEndpoint || c.TraceSampleRatio != tt.want.TraceSampleRatio ||
				!reflect.DeepEqual(c.OTLPHeaders, tt.want.OTLPHeaders) {
				t.Fatalf("tracing config = %q %v %v, want %q %v %v", c.OTLPEndpoint, c.TraceSampleRatio, c.OTLPHeaders,
					tt.want.OTLPEndpoint, tt.want.TraceSampleRatio, tt.want.OTLPHeaders)
			}
		})
	}
}

package app

import (
	"strings"
	"testing"
)

func TestLoadConfigBilling(t *testing.T) {
	for _, tt := range []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{name: "defaults", env: nil},
		{name: "webhook with its secret", env: map[string]string{"HEDDLE_LOW_BALANCE_WEBHOOK": "https://hooks.example.com/heddle",
			"HEDDLE_LOW_BALANCE_WEBHOOK_SECRET": "s3cret"}},
		{name: "negative threshold", env: map[string]string{"HEDDLE_LOW_BALANCE_MICROS": "-1"}, wantErr: "HEDDLE_LOW_BALANCE_MICROS"},
		{name: "webhook without a secret", env: map[string]string{"HEDDLE_LOW_BALANCE_WEBHOOK": "https://hooks.example.com/h"},
			wantErr: "HEDDLE_LOW_BALANCE_WEBHOOK_SECRET is required"},
		{name: "webhook not http", env: map[string]string{"HEDDLE_LOW_BALANCE_WEBHOOK": "ftp://hooks.example.com/h",
			"HEDDLE_LOW_BALANCE_WEBHOOK_SECRET": "s"}, wantErr: "want an absolute http(s) URL"},
		{name: "webhook on a private address", env: map[string]string{"HEDDLE_LOW_BALANCE_WEBHOOK": "http://10.0.0.5/h",
			"HEDDLE_LOW_BALANCE_WEBHOOK_SECRET": "s"}, wantErr: "HEDDLE_LOW_BALANCE_WEBHOOK:"},
		{name: "private allowed by the operator", env: map[string]string{"HEDDLE_LOW_BALANCE_WEBHOOK": "http://127.0.0.1:9/h",
			"HEDDLE_LOW_BALANCE_WEBHOOK_SECRET": "s", "HEDDLE_ALLOW_PRIVATE_UPSTREAMS": "true"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LoadConfig(env(tt.env))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if tt.env == nil && c.LowBalanceMicros != 1_000_000 {
					t.Errorf("default threshold %d", c.LowBalanceMicros)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestWebhookSignature(t *testing.T) {
	// The widely published HMAC-SHA256 example: key "key", the quick brown fox.
	got := sign([]byte("key"), []byte("The quick brown fox jumps over the lazy dog"))
	if got != "sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8" {
		t.Fatalf("signature %s", got)
	}
}

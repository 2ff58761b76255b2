package tenancy_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/tenancy"
)

func TestGenerateKey(t *testing.T) {
	seen := map[string]bool{}
	for range 500 {
		k := tenancy.GenerateKey()
		if len(k) != 43 || !strings.HasPrefix(k, "rk_") {
			t.Fatalf("key %q: want rk_ + 40 characters", k)
		}
		hash, prefix, err := tenancy.ParseKey(k)
		if err != nil {
			t.Fatalf("generated key %q does not parse: %v", k, err)
		}
		sum := sha256.Sum256([]byte(k))
		if hash != hex.EncodeToString(sum[:]) || prefix != k[:11] {
			t.Fatalf("ParseKey(%q) = %q, %q", k, hash, prefix)
		}
		if seen[k] {
			t.Fatalf("duplicate key %q", k)
		}
		seen[k] = true
	}
}

func TestParseKeyRejects(t *testing.T) {
	good := "rk_" + strings.Repeat("aZ09", 10)
	if _, _, err := tenancy.ParseKey(good); err != nil {
		t.Fatalf("good key refused: %v", err)
	}
	for _, c := range []struct{ name, key string }{
		{"empty", ""},
		{"prefix only", "rk_"},
		{"short", good[:42]},
		{"long", good + "a"},
		{"wrong prefix", "sk_" + good[3:]},
		{"upper prefix", "RK_" + good[3:]},
		{"dash", good[:20] + "-" + good[21:]},
		{"underscore", good[:20] + "_" + good[21:]},
		{"space", good[:20] + " " + good[21:]},
		{"non-ascii", good[:41] + "é"},
		{"nul", good[:20] + "\x00" + good[21:]},
	} {
		t.Run(c.name, func(t *testing.T) {
			hash, prefix, err := tenancy.ParseKey(c.key)
			wantErr(t, err, tenancy.ErrUnauthorized)
			if hash != "" || prefix != "" {
				t.Fatalf("rejected key returned %q %q", hash, prefix)
			}
		})
	}
}

func FuzzParseKey(f *testing.F) {
	f.Add("rk_" + strings.Repeat("a", 40))
	f.Add("rk_" + strings.Repeat("a", 39) + "!")
	f.Add("")
	f.Add("rk_")
	f.Add("Bearer rk_x")
	f.Fuzz(func(t *testing.T, s string) {
		hash, prefix, err := tenancy.ParseKey(s)
		if err != nil {
			if hash != "" || prefix != "" {
				t.Fatalf("error with output for %q", s)
			}
			return
		}
		if len(s) != 43 || s[:3] != "rk_" || prefix != s[:11] || len(hash) != 64 {
			t.Fatalf("accepted %q (hash %q prefix %q)", s, hash, prefix)
		}
		for _, c := range []byte(s[3:]) {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				t.Fatalf("accepted non-base62 %q", s)
			}
		}
	})
}

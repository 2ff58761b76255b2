package tenancy_test

import (
	"context"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/tenancy"
)

func TestHasherRoundTrip(t *testing.T) {
	ctx := context.Background()
	h := tenancy.NewHasher(tenancy.PasswordParams{Memory: 128, Time: 2, Threads: 1})
	enc, err := h.Hash(ctx, "s3cret password")
	noErr(t, err)
	if !strings.HasPrefix(enc, "$argon2id$v=19$m=128,t=2,p=1$") {
		t.Fatalf("encoded hash %q does not record argon2id and its parameters", enc)
	}
	again, _ := h.Hash(ctx, "s3cret password")
	if again == enc {
		t.Fatal("two hashes of one password are equal: salt not random")
	}
	for _, c := range []struct {
		name, pw string
		want     bool
	}{
		{"right password", "s3cret password", true},
		{"wrong password", "s3cret passwore", false},
		{"empty", "", false},
		{"prefix", "s3cret", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ok, err := h.Verify(ctx, enc, c.pw)
			noErr(t, err)
			if ok != c.want {
				t.Fatalf("Verify = %v, want %v", ok, c.want)
			}
		})
	}
	// A hasher with other parameters still verifies (parameters come from the hash).
	other := tenancy.NewHasher(tenancy.PasswordParams{Memory: 64, Time: 1, Threads: 1})
	if ok, err := other.Verify(ctx, enc, "s3cret password"); err != nil || !ok {
		t.Fatalf("verify with other params: %v %v", ok, err)
	}
}

func TestHasherRejectsMalformedHashes(t *testing.T) {
	h := fastHasher()
	for _, enc := range []string{
		"",
		"plaintext",
		"$argon2i$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=18$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=99999999,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=64,t=0,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=64,t=1,p=1$!!!$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$c2hvcnQ",
	} {
		if ok, err := h.Verify(context.Background(), enc, "x"); err == nil || ok {
			t.Errorf("Verify(%q) = %v, %v; want an error", enc, ok, err)
		}
	}
}

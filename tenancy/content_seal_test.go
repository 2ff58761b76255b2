package tenancy_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/heddle-gw/heddle/tenancy"
)

// TestContentSealBinding: content round-trips for its org and request only,
// survives a master-key rotation (the DEK version is unchanged), and becomes
// ErrDataKeyChanged once the org's DEK was replaced.
func TestContentSealBinding(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	path := devKeyset(t)
	v := newVault(t, path, w.store, tenancy.VaultConfig{DEKCacheTTL: -1})
	plain := []byte(`{"messages":[{"role":"user","content":"my secret prompt"}]}`)

	ct, ver, err := v.SealContent(ctx, w.orgA.ID, "req_1", plain)
	noErr(t, err)
	if ver != 1 || bytes.Contains(ct, []byte("secret prompt")) {
		t.Fatalf("seal: version %d, plaintext visible %v", ver, bytes.Contains(ct, []byte("secret prompt")))
	}
	got, err := v.OpenContent(ctx, w.orgA.ID, "req_1", ver, ct)
	noErr(t, err)
	if !bytes.Equal(got, plain) {
		t.Fatalf("round trip: %q", got)
	}
	_, _, err = v.SealContent(ctx, w.orgB.ID, "req_b", []byte("b"))
	noErr(t, err)

	for _, c := range []struct {
		name, org, req string
		ct             []byte
	}{
		{"another org", w.orgB.ID, "req_1", ct},
		{"another request", w.orgA.ID, "req_2", ct},
		{"flipped bit", w.orgA.ID, "req_1", flip(ct)},
	} {
		t.Run(c.name, func(t *testing.T) {
			pt, err := v.OpenContent(ctx, c.org, c.req, 1, c.ct)
			wantErr(t, err, tenancy.ErrVault)
			if pt != nil {
				t.Fatal("plaintext returned with error")
			}
		})
	}
	t.Run("a credential's ciphertext never opens as content", func(t *testing.T) {
		// Credentials bind org|credential|provider; a credential whose id
		// looks like a request id and whose provider is named "content"
		// must still not open as that request's content.
		cct, cver, err := v.Seal(ctx, w.orgA.ID, "req_9", "content", []byte("sk-credential"))
		noErr(t, err)
		pt, err := v.OpenContent(ctx, w.orgA.ID, "req_9", cver, cct)
		wantErr(t, err, tenancy.ErrVault)
		if pt != nil {
			t.Fatal("a credential opened as content")
		}
	})
	t.Run("bad associated data", func(t *testing.T) {
		for _, id := range []string{"", "a|b"} {
			_, _, err := v.SealContent(ctx, w.orgA.ID, id, plain)
			var ve *tenancy.ValidationError
			if !errors.As(err, &ve) || ve.Field != "request_id" {
				t.Errorf("request id %q: %v, want a request_id validation error", id, err)
			}
		}
	})

	t.Run("master key rotation keeps content readable", func(t *testing.T) {
		rep, err := tenancy.RotateMasterKeyset(ctx, path, w.store, tenancy.RotateOptions{})
		noErr(t, err)
		if rep.Rewrapped < 1 {
			t.Fatalf("rotation re-wrapped %d data keys", rep.Rewrapped)
		}
		fresh := newVault(t, path, w.store, tenancy.VaultConfig{DEKCacheTTL: -1})
		got, err := fresh.OpenContent(ctx, w.orgA.ID, "req_1", ver, ct)
		noErr(t, err)
		if !bytes.Equal(got, plain) {
			t.Fatalf("after rotation: %q", got)
		}
	})

	t.Run("a replaced data key", func(t *testing.T) {
		_, err := v.ReencryptOrg(ctx, w.orgA.ID)
		noErr(t, err)
		_, err = v.OpenContent(ctx, w.orgA.ID, "req_1", ver, ct)
		wantErr(t, err, tenancy.ErrDataKeyChanged)
	})
}

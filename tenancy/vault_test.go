package tenancy_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tink-crypto/tink-go/v2/insecurecleartextkeyset"
	"github.com/tink-crypto/tink-go/v2/keyset"
	"github.com/tink-crypto/tink-go/v2/mac"

	"github.com/heddle-gw/heddle/internal/testwait"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenancy/tenancytest"
)

func devKeyset(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keys", "master.json")
	created, err := tenancy.EnsureDevKeyset(path)
	noErr(t, err)
	if !created {
		t.Fatal("EnsureDevKeyset did not create a missing file")
	}
	return path
}

func newVault(t *testing.T, path string, store *tenancytest.Memory, cfg tenancy.VaultConfig) *tenancy.Vault {
	t.Helper()
	v, err := tenancy.NewVault(tenancy.FileKeyset(path), store, cfg)
	noErr(t, err)
	return v
}

func TestEnsureDevKeyset(t *testing.T) {
	path := devKeyset(t)
	fi, err := os.Stat(path)
	noErr(t, err)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("keyset file mode %v, want 0600", fi.Mode().Perm())
	}
	di, _ := os.Stat(filepath.Dir(path))
	if di.Mode().Perm() != 0o700 {
		t.Fatalf("keyset dir mode %v, want 0700", di.Mode().Perm())
	}
	before, _ := os.ReadFile(path)
	created, err := tenancy.EnsureDevKeyset(path)
	noErr(t, err)
	after, _ := os.ReadFile(path)
	if created || !bytes.Equal(before, after) {
		t.Fatal("EnsureDevKeyset replaced an existing keyset")
	}
	h, err := tenancy.ReadMasterKeysetFile(path)
	noErr(t, err)
	if h.Len() != 1 {
		t.Fatalf("dev keyset has %d keys, want 1", h.Len())
	}

	broken := filepath.Join(t.TempDir(), "broken.json")
	noErr(t, os.WriteFile(broken, []byte("{not json"), 0o600))
	_, err = tenancy.EnsureDevKeyset(broken)
	wantErr(t, err, tenancy.ErrMasterKeyset)
}

func TestParseMasterKeysetRefusesNonAEAD(t *testing.T) {
	mh, err := keyset.NewHandle(mac.HMACSHA256Tag256KeyTemplate())
	noErr(t, err)
	var buf bytes.Buffer
	noErr(t, insecurecleartextkeyset.Write(mh, keyset.NewJSONWriter(&buf)))
	for _, c := range []struct {
		name string
		in   []byte
	}{{"mac keyset", buf.Bytes()}, {"garbage", []byte("hello")}, {"empty", nil}} {
		_, err := tenancy.ParseMasterKeyset(c.in)
		wantErr(t, err, tenancy.ErrMasterKeyset)
		if c.name == "mac keyset" && strings.Contains(err.Error(), "value") {
			t.Fatalf("error mentions key material: %v", err)
		}
	}
}

func TestVaultRoundTripAndBinding(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	path := devKeyset(t)
	v := newVault(t, path, w.store, tenancy.VaultConfig{})
	plain := []byte("sk-live-0123456789abcdef")

	ct, ver, err := v.Seal(ctx, w.orgA.ID, "cred-1", "openai", plain)
	noErr(t, err)
	if ver != 1 || bytes.Contains(ct, plain) {
		t.Fatalf("seal: version %d, plaintext visible %v", ver, bytes.Contains(ct, plain))
	}
	dk, err := w.store.DataKey(ctx, w.orgA.ID)
	noErr(t, err)
	if dk.Version != 1 || len(dk.Wrapped) == 0 {
		t.Fatalf("data key %+v", dk)
	}
	ok := &tenancy.Credential{ID: "cred-1", OrgID: w.orgA.ID, Provider: "openai", Ciphertext: ct, DEKVersion: 1}
	got, err := v.Open(ctx, ok)
	noErr(t, err)
	if !bytes.Equal(got, plain) {
		t.Fatalf("round trip: %q", got)
	}
	// A fresh vault (another replica) opens it too.
	got, err = newVault(t, path, w.store, tenancy.VaultConfig{}).Open(ctx, ok)
	noErr(t, err)
	if !bytes.Equal(got, plain) {
		t.Fatalf("round trip on a second vault: %q", got)
	}
	// Org B gets its own DEK the first time it seals.
	_, _, err = v.Seal(ctx, w.orgB.ID, "cred-b", "openai", []byte("other-secret-123"))
	noErr(t, err)

	for _, c := range []struct {
		name string
		cred tenancy.Credential
	}{
		{"copied to another org", tenancy.Credential{ID: "cred-1", OrgID: w.orgB.ID, Provider: "openai", Ciphertext: ct, DEKVersion: 1}},
		{"another credential id", tenancy.Credential{ID: "cred-2", OrgID: w.orgA.ID, Provider: "openai", Ciphertext: ct, DEKVersion: 1}},
		{"another provider", tenancy.Credential{ID: "cred-1", OrgID: w.orgA.ID, Provider: "anthropic", Ciphertext: ct, DEKVersion: 1}},
		{"flipped bit", tenancy.Credential{ID: "cred-1", OrgID: w.orgA.ID, Provider: "openai", Ciphertext: flip(ct), DEKVersion: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			pt, err := v.Open(ctx, &c.cred)
			wantErr(t, err, tenancy.ErrVault)
			if pt != nil {
				t.Fatal("plaintext returned with error")
			}
		})
	}

	t.Run("wrapped DEK copied to another org", func(t *testing.T) {
		// Org C's row holds org A's wrapped DEK: unwrapping must fail because
		// the org id is the wrapping's associated data.
		dkA, _ := w.store.DataKey(ctx, w.orgA.ID)
		other := tenancytest.NewMemory()
		_, oc := signupIn(t, other, "carol@c.example", "Org C")
		noErr(t, other.CreateDataKey(ctx, &tenancy.DataKey{OrgID: oc.ID, Wrapped: dkA.Wrapped, Version: 1}))
		v2 := newVault(t, path, other, tenancy.VaultConfig{})
		_, err := v2.Open(ctx, &tenancy.Credential{ID: "cred-1", OrgID: oc.ID, Provider: "openai", Ciphertext: ct, DEKVersion: 1})
		wantErr(t, err, tenancy.ErrVault)
	})
}

func signupIn(t *testing.T, store *tenancytest.Memory, email, org string) (*tenancy.User, *tenancy.Org) {
	t.Helper()
	a := tenancy.NewAccounts(store, tenancy.AccountsConfig{Hasher: fastHasher()})
	u, o, err := a.Signup(context.Background(), tenancy.SignupInput{Email: email, Password: "correct horse battery", OrgName: org})
	noErr(t, err)
	return u, o
}

func flip(b []byte) []byte {
	c := bytes.Clone(b)
	c[len(c)-1] ^= 1
	return c
}

func TestVaultUnknownMasterKey(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	path := devKeyset(t)
	v := newVault(t, path, w.store, tenancy.VaultConfig{})
	ct, _, err := v.Seal(ctx, w.orgA.ID, "c", "openai", []byte("secret-value-1"))
	noErr(t, err)
	// A vault with a different master keyset that cannot reload a better one.
	other, err := tenancy.NewMasterKeyset()
	noErr(t, err)
	stranger, err := tenancy.NewVault(tenancy.StaticKeyset(other), w.store, tenancy.VaultConfig{DEKCacheTTL: -1})
	noErr(t, err)
	_, err = stranger.Open(ctx, &tenancy.Credential{ID: "c", OrgID: w.orgA.ID, Provider: "openai", Ciphertext: ct, DEKVersion: 1})
	wantErr(t, err, tenancy.ErrVault)
}

// TestRotateWhileResolving hammers Resolve from several goroutines, on a
// "server" vault that caches nothing (so every call unwraps the org's DEK),
// while RotateMasterKeyset adds a master key, re-wraps every DEK and
// re-encrypts one org under a fresh DEK. No call may fail, and afterwards
// every credential decrypts on a fresh vault.
func TestRotateWhileResolving(t *testing.T) {
	ctx := context.Background()
	store := tenancytest.NewMemory()
	path := devKeyset(t)
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	server := newVault(t, path, store, tenancy.VaultConfig{DEKCacheTTL: -1, ReloadEvery: time.Millisecond, Logger: logger})
	resolver := tenancy.NewCredentialResolver(store, server, tenancy.ResolverConfig{TTL: -1})
	creds := tenancy.NewCredentials(store, server, tenancy.CredentialsConfig{Resolver: resolver})

	type orgSecret struct {
		org, provider, secret string
	}
	var all []orgSecret
	for i := range 6 {
		u, o := signupIn(t, store, fmt.Sprintf("u%d@example.com", i), fmt.Sprintf("Org %d", i))
		actor := tenancy.Actor{UserID: u.ID, OrgID: o.ID, Role: tenancy.RoleOwner}
		for _, p := range []string{"openai", "anthropic"} {
			s := fmt.Sprintf("sk-%s-%d-%s", p, i, strings.Repeat("x", 20))
			_, err := creds.Add(ctx, actor, tenancy.CredentialInput{Provider: p, Secret: s})
			noErr(t, err)
			all = append(all, orgSecret{o.ID, p, s})
		}
	}
	oldWrapped := map[string][]byte{}
	for _, c := range all {
		dk, _ := store.DataKey(ctx, c.org)
		oldWrapped[c.org] = dk.Wrapped
	}

	stop := make(chan struct{})
	var calls, failures atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				c := all[i%len(all)]
				s, err := resolver.Resolve(ctx, c.org, c.provider)
				calls.Add(1)
				if err != nil || s.Value != c.secret {
					failures.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("%v (value ok: %v)", err, s.Value == c.secret))
				}
			}
		}()
	}
	// Resolves run before, during and after the rotation.
	from := calls.Load()
	testwait.Until(t, time.Minute, "resolves before the rotation", func() bool { return calls.Load()-from >= 20 })
	rep, err := tenancy.RotateMasterKeyset(ctx, path, store, tenancy.RotateOptions{ReencryptOrgID: all[0].org, BatchSize: 2, Logger: logger})
	from = calls.Load()
	testwait.Until(t, time.Minute, "resolves after the rotation", func() bool { return calls.Load()-from >= 20 })
	close(stop)
	wg.Wait()
	noErr(t, err)
	if failures.Load() != 0 {
		t.Fatalf("%d of %d resolves failed during rotation; first: %v", failures.Load(), calls.Load(), firstErr.Load())
	}
	if calls.Load() < 50 {
		t.Fatalf("only %d resolves ran; the test did not overlap the rotation", calls.Load())
	}
	if rep.Rewrapped != 6 || rep.Reencrypted != 2 || len(rep.OldKeyIDs) != 1 || rep.NewKeyID == rep.OldKeyIDs[0] {
		t.Fatalf("report %+v", rep)
	}
	h, err := tenancy.ReadMasterKeysetFile(path)
	noErr(t, err)
	if h.Len() != 2 || h.KeysetInfo().GetPrimaryKeyId() != rep.NewKeyID {
		t.Fatalf("keyset after rotation: %d keys, primary %d", h.Len(), h.KeysetInfo().GetPrimaryKeyId())
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("rotated keyset mode %v", fi.Mode().Perm())
	}
	if _, err := os.Stat(path + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock file left behind: %v", err)
	}
	for org, old := range oldWrapped {
		dk, _ := store.DataKey(ctx, org)
		if bytes.Equal(dk.Wrapped, old) {
			t.Fatalf("org %s DEK not re-wrapped", org)
		}
		want := int64(1)
		if org == all[0].org {
			want = 2
		}
		if dk.Version != want {
			t.Fatalf("org %s DEK version %d, want %d", org, dk.Version, want)
		}
	}
	fresh := newVault(t, path, store, tenancy.VaultConfig{})
	freshResolver := tenancy.NewCredentialResolver(store, fresh, tenancy.ResolverConfig{})
	for _, c := range all {
		s, err := freshResolver.Resolve(ctx, c.org, c.provider)
		if err != nil || s.Value != c.secret {
			t.Fatalf("after rotation %s/%s: %v", c.org, c.provider, err)
		}
	}
	// A second rotation re-wraps everything again; nothing is left on an old key.
	rep2, err := tenancy.RotateMasterKeyset(ctx, path, store, tenancy.RotateOptions{})
	noErr(t, err)
	if rep2.Rewrapped != 6 || len(rep2.OldKeyIDs) != 2 {
		t.Fatalf("second rotation %+v", rep2)
	}
	for _, c := range all {
		if bytes.Contains(logs.Bytes(), []byte(c.secret)) {
			t.Fatal("a credential's plaintext appears in the logs")
		}
	}
	if !bytes.Contains(logs.Bytes(), []byte("master keyset reloaded")) {
		t.Fatal("the server vault never reloaded the rotated keyset")
	}
}

func TestRotateRefusesConcurrentRotation(t *testing.T) {
	path := devKeyset(t)
	noErr(t, os.WriteFile(path+".lock", nil, 0o600))
	_, err := tenancy.RotateMasterKeyset(context.Background(), path, tenancytest.NewMemory(), tenancy.RotateOptions{})
	wantErr(t, err, tenancy.ErrMasterKeyset)
	h, _ := tenancy.ReadMasterKeysetFile(path)
	if h.Len() != 1 {
		t.Fatal("keyset changed while another rotation held the lock")
	}
}

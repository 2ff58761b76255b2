package tenancy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/tenancy"
)

type credWorld struct {
	*world
	vault    *tenancy.Vault
	keyset   string
	resolver *tenancy.CredentialResolver
	creds    *tenancy.Credentials
}

func newCredWorld(t *testing.T, cfg tenancy.CredentialsConfig) *credWorld {
	t.Helper()
	w := newWorld(t)
	path := devKeyset(t)
	v := newVault(t, path, w.store, tenancy.VaultConfig{Now: w.clock.Now})
	r := tenancy.NewCredentialResolver(w.store, v, tenancy.ResolverConfig{Now: w.clock.Now})
	cfg.Resolver, cfg.Now = r, w.clock.Now
	return &credWorld{world: w, vault: v, keyset: path, resolver: r, creds: tenancy.NewCredentials(w.store, v, cfg)}
}

const openaiSecret = "sk-proj-AAAABBBBCCCCDDDD1234"

func TestCredentialsLifecycle(t *testing.T) {
	ctx := context.Background()
	w := newCredWorld(t, tenancy.CredentialsConfig{})
	c, err := w.creds.Add(ctx, w.ownerA, tenancy.CredentialInput{Provider: "openai", Label: "prod", Secret: "  " + openaiSecret + "\n", BaseURL: "https://api.openai.com/v1/"})
	noErr(t, err)
	if c.Provider != "openai" || c.Label != "prod" || c.LastFour != "1234" || c.BaseURL != "https://api.openai.com/v1" ||
		c.Ciphertext != nil || c.OrgID != w.orgA.ID || c.CreatedBy != w.ownerA.UserID || c.RotatedAt != nil {
		t.Fatalf("added %+v", c)
	}
	stored, _ := w.store.OrgCredential(ctx, w.orgA.ID, c.ID)
	if bytes.Contains(stored.Ciphertext, []byte(openaiSecret)) || len(stored.Ciphertext) == 0 {
		t.Fatal("stored credential is not sealed")
	}
	s, err := w.resolver.Resolve(ctx, w.orgA.ID, "openai")
	noErr(t, err)
	if s.Value != openaiSecret || s.ID != c.ID || s.Label != "prod" || s.BaseURL != "https://api.openai.com/v1" || s.Provider != "openai" {
		t.Fatalf("resolved %+v", s.LogValue())
	}
	_, err = w.creds.Add(ctx, w.ownerA, tenancy.CredentialInput{Provider: "openai", Secret: "sk-another-secret-1"})
	wantErr(t, err, tenancy.ErrConflict)

	list, err := w.creds.List(ctx, w.ownerA)
	noErr(t, err)
	if len(list) != 1 || list[0].Ciphertext != nil || list[0].LastFour != "1234" {
		t.Fatalf("list %+v", list)
	}

	// Rotation shows on this replica at once.
	w.clock.Advance(time.Minute)
	rot, err := w.creds.Rotate(ctx, w.ownerA, c.ID, "sk-proj-rotated-value-9876")
	noErr(t, err)
	if rot.LastFour != "9876" || rot.RotatedAt == nil || !rot.RotatedAt.Equal(w.clock.Now()) || rot.Ciphertext != nil {
		t.Fatalf("rotated %+v", rot)
	}
	s, err = w.resolver.Resolve(ctx, w.orgA.ID, "openai")
	noErr(t, err)
	if s.Value != "sk-proj-rotated-value-9876" {
		t.Fatal("resolver served the old secret after rotation")
	}
	rev, err := w.creds.Reveal(ctx, w.ownerA, c.ID)
	noErr(t, err)
	if rev.Value != "sk-proj-rotated-value-9876" {
		t.Fatal("reveal returned the wrong value")
	}

	noErr(t, w.creds.Delete(ctx, w.ownerA, c.ID))
	_, err = w.resolver.Resolve(ctx, w.orgA.ID, "openai")
	wantErr(t, err, tenancy.ErrNotConfigured)
	_, err = w.resolver.Resolve(ctx, w.orgA.ID, "google")
	wantErr(t, err, tenancy.ErrNotConfigured)
}

func TestCredentialsRolesAndIsolation(t *testing.T) {
	ctx := context.Background()
	w := newCredWorld(t, tenancy.CredentialsConfig{})
	member := w.join(t, "m@a.example", tenancy.RoleMember)
	viewer := w.join(t, "v@a.example", tenancy.RoleViewer)
	admin := w.join(t, "ad@a.example", tenancy.RoleAdmin)

	mine, err := w.creds.Add(ctx, admin, tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret})
	noErr(t, err)
	theirs, err := w.creds.Add(ctx, w.ownerB, tenancy.CredentialInput{Provider: "openai", Secret: "sk-org-b-secret-5555"})
	noErr(t, err)

	for _, a := range []tenancy.Actor{member, viewer} {
		_, err := w.creds.Add(ctx, a, tenancy.CredentialInput{Provider: "anthropic", Secret: openaiSecret})
		wantErr(t, err, tenancy.ErrForbidden)
		_, err = w.creds.Rotate(ctx, a, mine.ID, "sk-new-value-0000")
		wantErr(t, err, tenancy.ErrForbidden)
		wantErr(t, w.creds.Delete(ctx, a, mine.ID), tenancy.ErrForbidden)
		_, err = w.creds.Reveal(ctx, a, mine.ID)
		wantErr(t, err, tenancy.ErrForbidden)
		list, err := w.creds.List(ctx, a)
		noErr(t, err)
		if len(list) != 1 || list[0].ID != mine.ID {
			t.Fatalf("list for %s: %+v", a.Role, list)
		}
	}
	// Org A's admin and owner cannot see or touch org B's credential.
	for _, a := range []tenancy.Actor{admin, w.ownerA} {
		_, err := w.creds.Get(ctx, a, theirs.ID)
		wantErr(t, err, tenancy.ErrNotFound)
		_, err = w.creds.Rotate(ctx, a, theirs.ID, "sk-hijack-value-0000")
		wantErr(t, err, tenancy.ErrNotFound)
		wantErr(t, w.creds.Delete(ctx, a, theirs.ID), tenancy.ErrNotFound)
		_, err = w.creds.Reveal(ctx, a, theirs.ID)
		wantErr(t, err, tenancy.ErrNotFound)
	}
	s, err := w.resolver.Resolve(ctx, w.orgB.ID, "openai")
	noErr(t, err)
	if s.Value != "sk-org-b-secret-5555" {
		t.Fatal("org B's credential changed")
	}
	s, _ = w.resolver.Resolve(ctx, w.orgA.ID, "openai")
	if s.Value != openaiSecret {
		t.Fatal("org A resolved another org's credential")
	}
}

func TestCredentialInputValidation(t *testing.T) {
	strict := newCredWorld(t, tenancy.CredentialsConfig{ProviderAllowed: func(p string) bool { return p != "forbidden" }})
	lax := newCredWorld(t, tenancy.CredentialsConfig{AllowPrivateBaseURL: true})
	for _, c := range []struct {
		name   string
		in     tenancy.CredentialInput
		field  string // "" means valid
		laxToo bool   // also refused with private URLs allowed
	}{
		{"valid", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret}, "", false},
		{"valid custom https", tenancy.CredentialInput{Provider: "my-llm", Secret: openaiSecret, BaseURL: "https://llm.example.com/v1"}, "", false},
		{"no provider", tenancy.CredentialInput{Secret: openaiSecret}, "provider", true},
		{"bad provider", tenancy.CredentialInput{Provider: "Open AI", Secret: openaiSecret}, "provider", true},
		{"pipe in provider", tenancy.CredentialInput{Provider: "a|b", Secret: openaiSecret}, "provider", true},
		{"short secret", tenancy.CredentialInput{Provider: "openai", Secret: "abc"}, "secret", true},
		{"space in secret", tenancy.CredentialInput{Provider: "openai", Secret: "sk-abc def-ghi"}, "secret", true},
		{"huge secret", tenancy.CredentialInput{Provider: "openai", Secret: strings.Repeat("a", 9000)}, "secret", true},
		{"label too long", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, Label: strings.Repeat("l", 101)}, "label", true},
		{"ftp url", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "ftp://x.example"}, "base_url", true},
		{"relative url", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "/v1"}, "base_url", true},
		{"userinfo", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://u:p@x.example"}, "base_url", true},
		{"query", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://x.example/?a=b"}, "base_url", true},
		{"plain http", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "http://x.example"}, "base_url", false},
		{"loopback", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://127.0.0.1:8443"}, "base_url", false},
		{"localhost", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://localhost"}, "base_url", false},
		{"private", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://10.1.2.3"}, "base_url", false},
		{"link-local metadata", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://169.254.169.254"}, "base_url", false},
		{"ipv6 loopback", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://[::1]"}, "base_url", false},
		{"mapped loopback", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://[::ffff:127.0.0.1]"}, "base_url", false},
		{"cgnat", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://100.64.0.1"}, "base_url", false},
		{"decimal loopback", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://2130706433"}, "base_url", true},
		{"short loopback", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://127.1"}, "base_url", true},
		{"octal loopback", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://0177.0.0.1"}, "base_url", true},
		{"hex loopback", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://0x7f000001"}, "base_url", true},
		{"zero", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://0"}, "base_url", true},
		{"decimal private", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://167772161"}, "base_url", true},
		{"hex metadata", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://0xa9fea9fe"}, "base_url", true},
		{"nat64 metadata", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://[64:ff9b::a9fe:a9fe]"}, "base_url", false},
		{"benchmarking", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://198.18.0.1"}, "base_url", false},
		{"reserved", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://240.0.0.1"}, "base_url", false},
		{"site-local", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://[fec0::1]"}, "base_url", false},
		{"ipv4-compatible loopback", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://[::127.0.0.1]"}, "base_url", false},
		{"6to4 loopback", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://[2002:7f00:1::1]"}, "base_url", false},
		{"public ipv4", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://8.8.8.8/v1"}, "", false},
		{"public ipv6", tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret, BaseURL: "https://[2606:4700::1111]/v1"}, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			check := func(w *credWorld, wantField string) {
				t.Helper()
				_, err := w.creds.CheckInput(c.in)
				if wantField == "" {
					noErr(t, err)
					return
				}
				var ve *tenancy.ValidationError
				if !asValidation(err, &ve) || ve.Field != wantField {
					t.Fatalf("got %v, want validation error on %s", err, wantField)
				}
				if strings.Contains(err.Error(), c.in.Secret) && len(c.in.Secret) >= 8 {
					t.Fatal("validation error echoes the secret")
				}
			}
			check(strict, c.field)
			if c.laxToo {
				check(lax, c.field)
			} else {
				check(lax, "")
			}
		})
	}
	_, err := strict.creds.CheckInput(tenancy.CredentialInput{Provider: "forbidden", Secret: openaiSecret})
	wantErr(t, err, tenancy.ErrInvalidInput)
}

func TestResolverCacheAcrossReplicas(t *testing.T) {
	ctx := context.Background()
	w := newCredWorld(t, tenancy.CredentialsConfig{})
	remote := tenancy.NewCredentialResolver(w.store, newVault(t, w.keyset, w.store, tenancy.VaultConfig{}),
		tenancy.ResolverConfig{TTL: 5 * time.Second, Now: w.clock.Now})
	c, err := w.creds.Add(ctx, w.ownerA, tenancy.CredentialInput{Provider: "openai", Secret: openaiSecret})
	noErr(t, err)
	s, err := remote.Resolve(ctx, w.orgA.ID, "openai")
	noErr(t, err)
	if s.Value != openaiSecret {
		t.Fatal("remote resolve")
	}
	_, err = w.creds.Rotate(ctx, w.ownerA, c.ID, "sk-proj-new-value-4321")
	noErr(t, err)
	s, _ = remote.Resolve(ctx, w.orgA.ID, "openai")
	if s.Value != openaiSecret {
		t.Fatal("remote cache not used within its TTL")
	}
	w.clock.Advance(5 * time.Second)
	s, _ = remote.Resolve(ctx, w.orgA.ID, "openai")
	if s.Value != "sk-proj-new-value-4321" {
		t.Fatal("remote replica still serves the old secret after the TTL")
	}
}

func TestSecretNeverPrints(t *testing.T) {
	s := tenancy.Secret{ID: "c1", Provider: "openai", Label: "prod", Value: openaiSecret, BaseURL: "https://x"}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("resolved", "secret", s)
	slog.New(slog.NewTextHandler(&logs, nil)).Info("resolved", "secret", s)
	js, err := json.Marshal(map[string]any{"s": s})
	noErr(t, err)
	for name, out := range map[string]string{
		"%v": fmt.Sprintf("%v", s), "%+v": fmt.Sprintf("%+v", s), "%#v": fmt.Sprintf("%#v", s), "%s": fmt.Sprintf("%s", s),
		"pointer %v": fmt.Sprintf("%v", &s), "String": s.String(), "slog": logs.String(), "json": string(js),
	} {
		if strings.Contains(out, openaiSecret) || strings.Contains(out, "AAAABBBB") {
			t.Errorf("%s leaks the secret: %s", name, out)
		}
		if !strings.Contains(out, "redacted") {
			t.Errorf("%s does not say it redacted: %s", name, out)
		}
	}
}

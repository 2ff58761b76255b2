package sqlstore_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"
	gormlogger "gorm.io/gorm/logger"

	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/internal/testwait"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenancy/sqlstore"
)

type vaultEnv struct {
	store    *sqlstore.Store
	path     string
	vault    *tenancy.Vault
	resolver *tenancy.CredentialResolver
	creds    *tenancy.Credentials
	accounts *tenancy.Accounts
	logs     *bytes.Buffer
}

// gormSession is the session the vault tests open to attach their SQL logger.
var gormSession = gorm.Session{NewDB: true}

func newVaultEnv(t *testing.T, d testdb.DB, vcfg tenancy.VaultConfig, rcfg tenancy.ResolverConfig) *vaultEnv {
	t.Helper()
	logs := &bytes.Buffer{}
	logger := slog.New(slog.NewJSONHandler(&safeWriter{w: logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	// Log every SQL statement with its values: the plaintext must not be in
	// any of them.
	db := d.DB.Session(&gormSession)
	db.Logger = gormlogger.NewSlogLogger(logger, gormlogger.Config{LogLevel: gormlogger.Info})
	store := sqlstore.New(db)
	path := filepath.Join(t.TempDir(), "master.json")
	if _, err := tenancy.EnsureDevKeyset(path); err != nil {
		t.Fatal(err)
	}
	vcfg.Logger = logger
	v, err := tenancy.NewVault(tenancy.FileKeyset(path), store, vcfg)
	if err != nil {
		t.Fatal(err)
	}
	r := tenancy.NewCredentialResolver(store, v, rcfg)
	return &vaultEnv{
		store: store, path: path, vault: v, resolver: r, logs: logs,
		creds:    tenancy.NewCredentials(store, v, tenancy.CredentialsConfig{Resolver: r}),
		accounts: tenancy.NewAccounts(store, tenancy.AccountsConfig{Hasher: tenancy.NewHasher(tenancy.PasswordParams{Memory: 64, Time: 1, Threads: 1})}),
	}
}

type safeWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *safeWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (e *vaultEnv) owner(t *testing.T, email, org string) tenancy.Actor {
	t.Helper()
	u, o, err := e.accounts.Signup(context.Background(), tenancy.SignupInput{Email: email, Password: "correct horse battery", OrgName: org})
	if err != nil {
		t.Fatal(err)
	}
	return tenancy.Actor{UserID: u.ID, OrgID: o.ID, Role: tenancy.RoleOwner}
}

// forms are the encodings a leaked plaintext could take in storage.
func forms(plain string) []string {
	return []string{plain, hex.EncodeToString([]byte(plain)), base64.StdEncoding.EncodeToString([]byte(plain)),
		base64.RawURLEncoding.EncodeToString([]byte(plain))}
}

// dumpDatabase returns every byte the database holds: all files of a SQLite
// database, or every row of every table of a Postgres one as text.
func dumpDatabase(t *testing.T, d testdb.DB) []byte {
	t.Helper()
	if d.Kind == "sqlite" {
		var all []byte
		entries, err := os.ReadDir(d.Dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(d.Dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, b...)
		}
		if len(all) == 0 {
			t.Fatal("empty sqlite database")
		}
		return all
	}
	var tables []string
	if err := d.DB.Raw("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'").Scan(&tables).Error; err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, tbl := range tables {
		var rows []string
		if err := d.DB.Raw(fmt.Sprintf(`SELECT t::text FROM %q t`, tbl)).Scan(&rows).Error; err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			all.WriteString(r)
			all.WriteByte('\n')
		}
	}
	if !strings.Contains(all.String(), "openai") {
		t.Fatal("postgres dump does not contain the credential rows")
	}
	return []byte(all.String())
}

func TestPlaintextNeverStoredOrLogged(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		e := newVaultEnv(t, d, tenancy.VaultConfig{}, tenancy.ResolverConfig{})
		actor := e.owner(t, "alice@example.com", "Acme")
		first := "sk-first-" + strings.Repeat("Q", 24) + "-PLAINTEXT"
		second := "sk-second-" + strings.Repeat("Z", 24) + "-PLAINTEXT"
		c, err := e.creds.Add(ctx, actor, tenancy.CredentialInput{Provider: "openai", Label: "prod", Secret: first})
		if err != nil {
			t.Fatal(err)
		}
		if s, err := e.resolver.Resolve(ctx, actor.OrgID, "openai"); err != nil || s.Value != first {
			t.Fatalf("resolve: %v", err)
		}
		if _, err := e.creds.Rotate(ctx, actor, c.ID, second); err != nil {
			t.Fatal(err)
		}
		if s, err := e.resolver.Resolve(ctx, actor.OrgID, "openai"); err != nil || s.Value != second {
			t.Fatalf("resolve after rotate: %v", err)
		}
		if _, err := e.vault.ReencryptOrg(ctx, actor.OrgID); err != nil {
			t.Fatal(err)
		}
		if _, err := tenancy.RotateMasterKeyset(ctx, e.path, e.store, tenancy.RotateOptions{Logger: slog.New(slog.NewJSONHandler(&safeWriter{w: e.logs}, nil))}); err != nil {
			t.Fatal(err)
		}
		if s, err := tenancy.NewCredentialResolver(e.store, e.vault, tenancy.ResolverConfig{TTL: -1}).Resolve(ctx, actor.OrgID, "openai"); err != nil || s.Value != second {
			t.Fatalf("resolve after rotations: %v", err)
		}
		dump := dumpDatabase(t, d)
		logs := e.logs.Bytes()
		if !bytes.Contains(logs, []byte("INSERT INTO")) && !bytes.Contains(logs, []byte("INSERT INTO \"credentials\"")) {
			t.Fatal("SQL statements were not captured; the log check would prove nothing")
		}
		for _, p := range []string{first, second} {
			for _, f := range forms(p) {
				if bytes.Contains(dump, []byte(f)) {
					t.Fatalf("%s database holds a credential plaintext (%.12s...)", d.Kind, f)
				}
				if bytes.Contains(logs, []byte(f)) {
					t.Fatalf("logs hold a credential plaintext (%.12s...)", f)
				}
			}
		}
	})
}

// TestRotateWhileResolvingOnRealDatabase: goroutines hammer Resolve (no
// caches, so every call reads and unwraps) while the master keyset rotates
// and one org is re-encrypted under a fresh DEK. Zero failures; afterwards
// every credential decrypts on a fresh vault.
func TestRotateWhileResolvingOnRealDatabase(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		e := newVaultEnv(t, d, tenancy.VaultConfig{DEKCacheTTL: -1, ReloadEvery: time.Millisecond}, tenancy.ResolverConfig{TTL: -1})
		e.store = sqlstore.New(d.DB) // hammering with SQL logging on is slow; log only in the test above
		type cred struct{ org, provider, secret string }
		var all []cred
		for i := range 4 {
			a := e.owner(t, fmt.Sprintf("u%d@example.com", i), fmt.Sprintf("Org %d", i))
			for _, p := range []string{"openai", "anthropic"} {
				s := fmt.Sprintf("sk-%s-%d-%s", p, i, strings.Repeat("k", 16))
				if _, err := e.creds.Add(ctx, a, tenancy.CredentialInput{Provider: p, Secret: s}); err != nil {
					t.Fatal(err)
				}
				all = append(all, cred{a.OrgID, p, s})
			}
		}
		stop := make(chan struct{})
		var calls, failures atomic.Int64
		var firstErr atomic.Value
		var wg sync.WaitGroup
		for g := range 3 {
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
					s, err := e.resolver.Resolve(ctx, c.org, c.provider)
					calls.Add(1)
					if err != nil || s.Value != c.secret {
						failures.Add(1)
						firstErr.CompareAndSwap(nil, fmt.Sprint(err))
					}
				}
			}()
		}
		// Resolves run before, during and after the rotation.
		from := calls.Load()
		testwait.Until(t, time.Minute, "resolves before the rotation", func() bool { return calls.Load()-from >= 20 })
		rep, err := tenancy.RotateMasterKeyset(ctx, e.path, sqlstore.New(d.DB), tenancy.RotateOptions{ReencryptOrgID: all[0].org, BatchSize: 3})
		from = calls.Load()
		testwait.Until(t, time.Minute, "resolves after the rotation", func() bool { return calls.Load()-from >= 20 })
		close(stop)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if failures.Load() != 0 {
			t.Fatalf("%d of %d resolves failed during rotation; first: %v", failures.Load(), calls.Load(), firstErr.Load())
		}
		if rep.Rewrapped != 4 || rep.Reencrypted != 2 {
			t.Fatalf("report %+v", rep)
		}
		fresh, err := tenancy.NewVault(tenancy.FileKeyset(e.path), sqlstore.New(d.DB), tenancy.VaultConfig{})
		if err != nil {
			t.Fatal(err)
		}
		r := tenancy.NewCredentialResolver(sqlstore.New(d.DB), fresh, tenancy.ResolverConfig{})
		for _, c := range all {
			if s, err := r.Resolve(ctx, c.org, c.provider); err != nil || s.Value != c.secret {
				t.Fatalf("after rotation %s: %v", c.provider, err)
			}
		}
		t.Logf("%s: %d resolves during rotation, 0 failures", d.Kind, calls.Load())
	})
}

package tenancy

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/tink-crypto/tink-go/v2/aead"
	"github.com/tink-crypto/tink-go/v2/keyset"
	"github.com/tink-crypto/tink-go/v2/tink"
)

// VaultConfig configures a Vault.
type VaultConfig struct {
	// DEKCacheTTL bounds how long an unwrapped data keyset stays in memory;
	// 0 means one hour, negative disables the cache.
	DEKCacheTTL time.Duration
	// ReloadEvery is the least time between two reloads of the master
	// keyset; 0 means one second.
	ReloadEvery time.Duration
	Now         func() time.Time // nil means time.Now
	Logger      *slog.Logger     // nil discards
}

type vaultStore interface {
	DataKeyStore
	CredentialStore
}

type dekEntry struct {
	aead    tink.AEAD
	version int64
	loaded  time.Time
}

// Vault is the BYOK vault: envelope encryption with Tink. A master keyset
// (KEK) wraps one data keyset (DEK, AES256-GCM) per organisation, with the
// org id as associated data; each credential is sealed under its org's DEK
// with associated data "org_id|credential_id|provider". Plaintext is never
// stored or logged. Safe for concurrent use.
type Vault struct {
	src   KeysetSource
	store vaultStore
	cfg   VaultConfig

	kekMu sync.Mutex // serialises reloads
	kek   *kekState
	// lastReload is when the keyset was last reloaded; a key id still unknown
	// within ReloadEvery of it fails without touching the source again.
	lastReload time.Time

	dekMu sync.Mutex
	deks  map[string]dekEntry
}

// NewVault loads the master keyset from src and returns a Vault.
func NewVault(src KeysetSource, store vaultStore, cfg VaultConfig) (*Vault, error) {
	if cfg.DEKCacheTTL == 0 {
		cfg.DEKCacheTTL = time.Hour
	}
	if cfg.ReloadEvery <= 0 {
		cfg.ReloadEvery = time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	h, err := src.LoadKeyset()
	if err != nil {
		return nil, err
	}
	st, err := newKEKState(h)
	if err != nil {
		return nil, err
	}
	return &Vault{src: src, store: store, cfg: cfg, kek: st, deks: make(map[string]dekEntry)}, nil
}

func (v *Vault) currentKEK() *kekState {
	v.kekMu.Lock()
	defer v.kekMu.Unlock()
	return v.kek
}

// kekFor returns a master keyset that knows keyID, reloading the source at
// most once per ReloadEvery when the current one does not.
func (v *Vault) kekFor(ctx context.Context, keyID uint32) (*kekState, error) {
	v.kekMu.Lock()
	defer v.kekMu.Unlock()
	if v.kek.ids[keyID] {
		return v.kek, nil
	}
	now := v.cfg.Now()
	if now.Sub(v.lastReload) < v.cfg.ReloadEvery {
		return nil, fmt.Errorf("%w: data key wrapped by unknown master key %d", ErrVault, keyID)
	}
	v.lastReload = now
	h, err := v.src.LoadKeyset()
	if err != nil {
		return nil, fmt.Errorf("%w: reload master keyset: %w", ErrVault, err)
	}
	st, err := newKEKState(h)
	if err != nil {
		return nil, fmt.Errorf("%w: reload master keyset: %w", ErrVault, err)
	}
	v.kek = st
	v.cfg.Logger.InfoContext(ctx, "master keyset reloaded", "primary_key_id", st.primary, "keys", len(st.ids))
	if !st.ids[keyID] {
		return nil, fmt.Errorf("%w: data key wrapped by unknown master key %d", ErrVault, keyID)
	}
	return st, nil
}

// wrappingKeyID returns the id of the master key that wrapped a data keyset
// (the Tink output prefix of the encrypted keyset: 0x01 then 4 bytes).
func wrappingKeyID(wrapped []byte) (uint32, error) {
	ek, err := keyset.NewBinaryReader(bytes.NewReader(wrapped)).ReadEncrypted()
	if err != nil {
		return 0, fmt.Errorf("%w: malformed wrapped data key", ErrVault)
	}
	ct := ek.GetEncryptedKeyset()
	if len(ct) < 5 || ct[0] != 1 {
		return 0, fmt.Errorf("%w: wrapped data key has no key id prefix", ErrVault)
	}
	return binary.BigEndian.Uint32(ct[1:5]), nil
}

func (v *Vault) unwrap(ctx context.Context, dk *DataKey) (*keyset.Handle, error) {
	id, err := wrappingKeyID(dk.Wrapped)
	if err != nil {
		return nil, err
	}
	kek, err := v.kekFor(ctx, id)
	if err != nil {
		return nil, err
	}
	h, err := keyset.ReadWithAssociatedData(keyset.NewBinaryReader(bytes.NewReader(dk.Wrapped)), kek.aead, []byte(dk.OrgID))
	if err != nil {
		return nil, fmt.Errorf("%w: unwrap data key of org %s", ErrVault, dk.OrgID)
	}
	return h, nil
}

func wrap(h *keyset.Handle, kek *kekState, orgID string) ([]byte, error) {
	var buf bytes.Buffer
	if err := h.WriteWithAssociatedData(keyset.NewBinaryWriter(&buf), kek.aead, []byte(orgID)); err != nil {
		return nil, fmt.Errorf("%w: wrap data key: %w", ErrVault, err)
	}
	return buf.Bytes(), nil
}

func newDataKeyset() (*keyset.Handle, error) {
	h, err := keyset.NewHandle(aead.AES256GCMKeyTemplate())
	if err != nil {
		return nil, fmt.Errorf("%w: generate data key: %w", ErrVault, err)
	}
	return h, nil
}

// dek returns the org's data keyset AEAD, creating the org's DEK on first
// use. want, when non-zero, is the DEK version a ciphertext needs; a cached
// entry of another version is refreshed, and a store version that still
// differs is ErrDataKeyChanged (the credential was re-sealed meanwhile).
func (v *Vault) dek(ctx context.Context, orgID string, want int64) (dekEntry, error) {
	now := v.cfg.Now()
	v.dekMu.Lock()
	e, ok := v.deks[orgID]
	v.dekMu.Unlock()
	if ok && now.Sub(e.loaded) < v.cfg.DEKCacheTTL && (want == 0 || e.version == want) {
		return e, nil
	}
	dk, err := v.store.DataKey(ctx, orgID)
	if errors.Is(err, ErrNotFound) && want == 0 {
		dk, err = v.createDEK(ctx, orgID)
	}
	if err != nil {
		return dekEntry{}, fmt.Errorf("tenancy: data key of org %s: %w", orgID, err)
	}
	if want != 0 && dk.Version != want {
		return dekEntry{}, fmt.Errorf("tenancy: data key version %d, want %d: %w", dk.Version, want, ErrDataKeyChanged)
	}
	h, err := v.unwrap(ctx, dk)
	if err != nil {
		return dekEntry{}, err
	}
	a, err := aead.New(h)
	if err != nil {
		return dekEntry{}, fmt.Errorf("%w: data key primitive: %w", ErrVault, err)
	}
	e = dekEntry{aead: a, version: dk.Version, loaded: now}
	if v.cfg.DEKCacheTTL > 0 {
		v.dekMu.Lock()
		v.deks[orgID] = e
		v.dekMu.Unlock()
	}
	return e, nil
}

func (v *Vault) createDEK(ctx context.Context, orgID string) (*DataKey, error) {
	h, err := newDataKeyset()
	if err != nil {
		return nil, err
	}
	kek := v.currentKEK()
	w, err := wrap(h, kek, orgID)
	if err != nil {
		return nil, err
	}
	now := v.cfg.Now().UTC()
	dk := &DataKey{OrgID: orgID, Wrapped: w, Version: 1, CreatedAt: now, UpdatedAt: now}
	if err := v.store.CreateDataKey(ctx, dk); err != nil {
		if errors.Is(err, ErrConflict) {
			return v.store.DataKey(ctx, orgID)
		}
		return nil, err
	}
	return dk, nil
}

func (v *Vault) forgetDEK(orgID string) {
	v.dekMu.Lock()
	delete(v.deks, orgID)
	v.dekMu.Unlock()
}

// credentialAD binds a ciphertext to its org, credential and provider.
func credentialAD(orgID, credID, provider string) []byte {
	return []byte(orgID + "|" + credID + "|" + provider)
}

func checkADPart(field, s string) error {
	if s == "" || strings.Contains(s, "|") {
		return invalid(field, "must be non-empty and must not contain '|'")
	}
	return nil
}

// Seal encrypts a credential's plaintext for org, credential id and
// provider, and returns the ciphertext and the DEK version used.
func (v *Vault) Seal(ctx context.Context, orgID, credID, provider string, plaintext []byte) ([]byte, int64, error) {
	for _, p := range [][2]string{{"org_id", orgID}, {"credential_id", credID}, {"provider", provider}} {
		if err := checkADPart(p[0], p[1]); err != nil {
			return nil, 0, err
		}
	}
	e, err := v.dek(ctx, orgID, 0)
	if err != nil {
		return nil, 0, err
	}
	ct, err := e.aead.Encrypt(plaintext, credentialAD(orgID, credID, provider))
	if err != nil {
		return nil, 0, fmt.Errorf("%w: seal: %w", ErrVault, err)
	}
	return ct, e.version, nil
}

// Open decrypts a stored credential. A ciphertext moved to another org,
// credential or provider fails with ErrVault; one sealed under a DEK version
// that is no longer current is ErrDataKeyChanged (re-read the row and retry).
func (v *Vault) Open(ctx context.Context, c *Credential) ([]byte, error) {
	e, err := v.dek(ctx, c.OrgID, max(c.DEKVersion, 1))
	if err != nil {
		return nil, err
	}
	pt, err := e.aead.Decrypt(c.Ciphertext, credentialAD(c.OrgID, c.ID, c.Provider))
	if err != nil {
		return nil, fmt.Errorf("%w: credential %s does not decrypt for org %s", ErrVault, c.ID, c.OrgID)
	}
	return pt, nil
}

package tenancy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"

	"github.com/tink-crypto/tink-go/v2/aead"
	"github.com/tink-crypto/tink-go/v2/keyset"
)

// RotateOptions configures RotateMasterKeyset.
type RotateOptions struct {
	// ReencryptOrgID, when set, also re-seals that organisation's
	// credentials under a fresh data keyset.
	ReencryptOrgID string
	// BatchSize is how many data keys are read per page; 0 means 50. Each
	// data key is re-wrapped in its own small transaction.
	BatchSize int
	Logger    *slog.Logger // nil discards
}

// RotateReport says what a rotation did.
type RotateReport struct {
	NewKeyID    uint32 // the new primary master key
	OldKeyIDs   []uint32
	Rewrapped   int // data keys re-wrapped under the new key
	Reencrypted int // credentials re-sealed under a fresh data key
}

// RotateMasterKeyset adds a fresh AES256-GCM key to the master keyset file
// at path as its primary (old keys stay, so anything wrapped by them still
// opens), writes the file atomically, then re-wraps every organisation's
// data keyset under the new key, one small transaction each, while servers
// keep running: a server meeting a data key wrapped by the new key reloads
// the file. A lock file beside path keeps two rotations apart.
func RotateMasterKeyset(ctx context.Context, path string, store vaultStore, opts RotateOptions) (RotateReport, error) {
	var rep RotateReport
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return rep, err
	}
	defer unlock()

	h, err := ReadMasterKeysetFile(path)
	if err != nil {
		return rep, err
	}
	for _, k := range h.KeysetInfo().GetKeyInfo() {
		rep.OldKeyIDs = append(rep.OldKeyIDs, k.GetKeyId())
	}
	m := keyset.NewManagerFromHandle(h)
	id, err := m.Add(aead.AES256GCMKeyTemplate())
	if err != nil {
		return rep, fmt.Errorf("%w: add key: %w", ErrMasterKeyset, err)
	}
	if err := m.SetPrimary(id); err != nil {
		return rep, fmt.Errorf("%w: set primary: %w", ErrMasterKeyset, err)
	}
	nh, err := m.Handle()
	if err != nil {
		return rep, fmt.Errorf("%w: %w", ErrMasterKeyset, err)
	}
	if err := writeKeysetFileAtomic(path, nh); err != nil {
		return rep, err
	}
	rep.NewKeyID = id
	opts.Logger.InfoContext(ctx, "master keyset rotated", "path", path, "new_key_id", id, "keys", len(rep.OldKeyIDs)+1)

	v, err := NewVault(FileKeyset(path), store, VaultConfig{DEKCacheTTL: -1, Logger: opts.Logger})
	if err != nil {
		return rep, err
	}
	if v.currentKEK().primary != id {
		return rep, fmt.Errorf("%w: keyset file changed during rotation", ErrMasterKeyset)
	}
	rep.Rewrapped, err = v.RewrapAll(ctx, opts.BatchSize)
	if err != nil {
		return rep, err
	}
	if opts.ReencryptOrgID != "" {
		rep.Reencrypted, err = v.ReencryptOrg(ctx, opts.ReencryptOrgID)
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// RewrapAll re-wraps every data keyset not yet wrapped by the current
// primary master key. It returns how many it re-wrapped.
func (v *Vault) RewrapAll(ctx context.Context, batch int) (int, error) {
	if batch <= 0 {
		batch = 50
	}
	n, after := 0, ""
	for {
		page, err := v.store.DataKeysAfter(ctx, after, batch)
		if err != nil {
			return n, fmt.Errorf("tenancy: list data keys: %w", err)
		}
		for i := range page {
			done, err := v.rewrapOne(ctx, &page[i])
			if err != nil {
				return n, err
			}
			if done {
				n++
			}
		}
		if len(page) < batch {
			return n, nil
		}
		after = page[len(page)-1].OrgID
	}
}

func (v *Vault) rewrapOne(ctx context.Context, dk *DataKey) (bool, error) {
	for attempt := 0; attempt < 5; attempt++ {
		kek := v.currentKEK()
		id, err := wrappingKeyID(dk.Wrapped)
		if err != nil {
			return false, err
		}
		if id == kek.primary {
			return false, nil
		}
		h, err := v.unwrap(ctx, dk)
		if err != nil {
			return false, err
		}
		w, err := wrap(h, kek, dk.OrgID)
		if err != nil {
			return false, err
		}
		err = v.store.RewrapDataKey(ctx, dk.OrgID, dk.Version, dk.Wrapped, w, v.cfg.Now().UTC())
		if err == nil {
			v.cfg.Logger.InfoContext(ctx, "data key re-wrapped", "org_id", dk.OrgID, "key_id", kek.primary)
			return true, nil
		}
		if !errors.Is(err, ErrConflict) {
			return false, fmt.Errorf("tenancy: re-wrap data key of org %s: %w", dk.OrgID, err)
		}
		fresh, err := v.store.DataKey(ctx, dk.OrgID)
		if err != nil {
			return false, fmt.Errorf("tenancy: re-wrap data key of org %s: %w", dk.OrgID, err)
		}
		dk = fresh
	}
	return false, fmt.Errorf("tenancy: re-wrap data key: %w", ErrConflict)
}

// ReencryptOrg gives an organisation a fresh data keyset and re-seals all
// its credentials under it, in one transaction; the old DEK is discarded.
// It returns how many credentials it re-sealed.
func (v *Vault) ReencryptOrg(ctx context.Context, orgID string) (int, error) {
	for attempt := 0; attempt < 5; attempt++ {
		n, err := v.reencryptOnce(ctx, orgID)
		if !errors.Is(err, ErrConflict) && !errors.Is(err, ErrDataKeyChanged) {
			return n, err
		}
	}
	return 0, fmt.Errorf("tenancy: re-encrypt org %s: %w", orgID, ErrConflict)
}

func (v *Vault) reencryptOnce(ctx context.Context, orgID string) (int, error) {
	v.forgetDEK(orgID)
	old, err := v.dek(ctx, orgID, 0)
	if err != nil {
		return 0, err
	}
	h, err := newDataKeyset()
	if err != nil {
		return 0, err
	}
	fresh, err := aead.New(h)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrVault, err)
	}
	w, err := wrap(h, v.currentKEK(), orgID)
	if err != nil {
		return 0, err
	}
	now := v.cfg.Now().UTC()
	dk := &DataKey{OrgID: orgID, Wrapped: w, Version: old.version + 1, CreatedAt: now, UpdatedAt: now}
	n := 0
	err = v.store.ReencryptDataKey(ctx, orgID, old.version, func(creds []Credential) (*DataKey, []Credential, error) {
		out := make([]Credential, len(creds))
		for i, c := range creds {
			if c.DEKVersion != old.version {
				return nil, nil, fmt.Errorf("tenancy: credential sealed under another data key: %w", ErrDataKeyChanged)
			}
			ad := credentialAD(c.OrgID, c.ID, c.Provider)
			pt, err := old.aead.Decrypt(c.Ciphertext, ad)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: credential %s does not decrypt for org %s", ErrVault, c.ID, orgID)
			}
			c.Ciphertext, err = fresh.Encrypt(pt, ad)
			clear(pt)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: seal: %w", ErrVault, err)
			}
			c.DEKVersion = dk.Version
			out[i] = c
		}
		n = len(out)
		return dk, out, nil
	})
	if err != nil {
		return 0, fmt.Errorf("tenancy: re-encrypt org %s: %w", orgID, err)
	}
	v.forgetDEK(orgID)
	v.cfg.Logger.InfoContext(ctx, "organisation re-encrypted under a fresh data key", "org_id", orgID, "credentials", n, "dek_version", dk.Version)
	return n, nil
}

// lockFile takes an exclusive lock file; the returned func releases it.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%w: another rotation holds %s (remove it if no rotation is running)", ErrMasterKeyset, path)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMasterKeyset, err)
	}
	f.Close()
	return func() { os.Remove(path) }, nil
}

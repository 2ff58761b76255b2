package sqlstore

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/tenancy"
)

// checkDEK locks the org's data key row and checks its version, so no
// ciphertext is written under a data key that was replaced meanwhile.
func checkDEK(tx *gorm.DB, orgID string, version int64) error {
	res := tx.Exec("UPDATE org_data_keys SET version = version WHERE org_id = ? AND version = ?", orgID, version)
	return affected1(res, tenancy.ErrDataKeyChanged)
}

// CreateCredential implements tenancy.CredentialStore.
func (s *Store) CreateCredential(ctx context.Context, c *tenancy.Credential) error {
	return mapErr("create credential", s.tx(ctx, func(tx *gorm.DB) error {
		if err := checkDEK(tx, c.OrgID, c.DEKVersion); err != nil {
			return err
		}
		return tx.Create(credentialToRow(c)).Error
	}))
}

// OrgCredentials implements tenancy.CredentialStore.
func (s *Store) OrgCredentials(ctx context.Context, orgID string) ([]tenancy.Credential, error) {
	var rows []credentialRow
	if err := s.conn(ctx).Where("org_id = ?", orgID).Order("created_at, id").Find(&rows).Error; err != nil {
		return nil, mapErr("org credentials", err)
	}
	out := make([]tenancy.Credential, len(rows))
	for i := range rows {
		out[i] = *rows[i].domain()
	}
	return out, nil
}

// OrgCredential implements tenancy.CredentialStore.
func (s *Store) OrgCredential(ctx context.Context, orgID, id string) (*tenancy.Credential, error) {
	var r credentialRow
	if err := s.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Take(&r).Error; err != nil {
		return nil, mapErr("org credential", err)
	}
	return r.domain(), nil
}

// CredentialByProvider implements tenancy.CredentialStore.
func (s *Store) CredentialByProvider(ctx context.Context, orgID, provider string) (*tenancy.Credential, error) {
	var r credentialRow
	if err := s.conn(ctx).Where("org_id = ? AND provider = ?", orgID, provider).Take(&r).Error; err != nil {
		return nil, mapErr("credential by provider", err)
	}
	return r.domain(), nil
}

// UpdateCredentialSecret implements tenancy.CredentialStore.
func (s *Store) UpdateCredentialSecret(ctx context.Context, c *tenancy.Credential) error {
	return mapErr("update credential", s.tx(ctx, func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&credentialRow{}).Where("org_id = ? AND id = ?", c.OrgID, c.ID).Count(&n).Error; err != nil {
			return err
		}
		if n == 0 {
			return tenancy.ErrNotFound
		}
		if err := checkDEK(tx, c.OrgID, c.DEKVersion); err != nil {
			return err
		}
		res := tx.Exec("UPDATE credentials SET ciphertext = ?, last_four = ?, dek_version = ?, rotated_at = ? WHERE org_id = ? AND id = ?",
			c.Ciphertext, c.LastFour, c.DEKVersion, utcPtr(c.RotatedAt), c.OrgID, c.ID)
		return affected1(res, tenancy.ErrNotFound)
	}))
}

// DeleteCredential implements tenancy.CredentialStore.
func (s *Store) DeleteCredential(ctx context.Context, orgID, id string) error {
	res := s.conn(ctx).Exec("DELETE FROM credentials WHERE org_id = ? AND id = ?", orgID, id)
	return mapErr("delete credential", affected1(res, tenancy.ErrNotFound))
}

// DataKey implements tenancy.DataKeyStore.
func (s *Store) DataKey(ctx context.Context, orgID string) (*tenancy.DataKey, error) {
	var r dataKeyRow
	if err := s.conn(ctx).Where("org_id = ?", orgID).Take(&r).Error; err != nil {
		return nil, mapErr("data key", err)
	}
	return r.domain(), nil
}

// CreateDataKey implements tenancy.DataKeyStore.
func (s *Store) CreateDataKey(ctx context.Context, dk *tenancy.DataKey) error {
	r := &dataKeyRow{OrgID: dk.OrgID, Wrapped: dk.Wrapped, Version: dk.Version, CreatedAt: utc(dk.CreatedAt), UpdatedAt: utc(dk.UpdatedAt)}
	return mapErr("create data key", s.conn(ctx).Create(r).Error)
}

// DataKeysAfter implements tenancy.DataKeyStore.
func (s *Store) DataKeysAfter(ctx context.Context, after string, limit int) ([]tenancy.DataKey, error) {
	var rows []dataKeyRow
	if err := s.conn(ctx).Where("org_id > ?", after).Order("org_id").Limit(limit).Find(&rows).Error; err != nil {
		return nil, mapErr("data keys", err)
	}
	out := make([]tenancy.DataKey, len(rows))
	for i := range rows {
		out[i] = *rows[i].domain()
	}
	return out, nil
}

// RewrapDataKey implements tenancy.DataKeyStore.
func (s *Store) RewrapDataKey(ctx context.Context, orgID string, version int64, oldWrapped, newWrapped []byte, at time.Time) error {
	res := s.conn(ctx).Exec("UPDATE org_data_keys SET wrapped = ?, updated_at = ? WHERE org_id = ? AND version = ? AND wrapped = ?",
		newWrapped, utc(at), orgID, version, oldWrapped)
	return mapErr("rewrap data key", affected1(res, tenancy.ErrConflict))
}

// ReencryptDataKey implements tenancy.DataKeyStore. The version check
// takes the data key row's write lock, so credential writes (which touch
// that row first) wait and then see the new version.
func (s *Store) ReencryptDataKey(ctx context.Context, orgID string, oldVersion int64, reseal tenancy.Reseal) error {
	return mapErr("re-encrypt data key", s.tx(ctx, func(tx *gorm.DB) error {
		res := tx.Exec("UPDATE org_data_keys SET version = version WHERE org_id = ? AND version = ?", orgID, oldVersion)
		if err := affected1(res, tenancy.ErrConflict); err != nil {
			return err
		}
		var rows []credentialRow
		if err := tx.Where("org_id = ?", orgID).Order("created_at, id").Find(&rows).Error; err != nil {
			return err
		}
		creds := make([]tenancy.Credential, len(rows))
		for i := range rows {
			creds[i] = *rows[i].domain()
		}
		dk, out, err := reseal(creds)
		if err != nil {
			return err
		}
		if dk == nil || dk.OrgID != orgID || dk.Version != oldVersion+1 || len(out) != len(creds) {
			return tenancy.ErrConflict
		}
		res = tx.Exec("UPDATE org_data_keys SET wrapped = ?, version = ?, created_at = ?, updated_at = ? WHERE org_id = ? AND version = ?",
			dk.Wrapped, dk.Version, utc(dk.CreatedAt), utc(dk.UpdatedAt), orgID, oldVersion)
		if err := affected1(res, tenancy.ErrConflict); err != nil {
			return err
		}
		for i, c := range out {
			if c.ID != creds[i].ID || c.DEKVersion != dk.Version {
				return tenancy.ErrConflict
			}
			res := tx.Exec("UPDATE credentials SET ciphertext = ?, dek_version = ? WHERE org_id = ? AND id = ? AND dek_version = ?",
				c.Ciphertext, c.DEKVersion, orgID, c.ID, oldVersion)
			if err := affected1(res, tenancy.ErrConflict); err != nil {
				return err
			}
		}
		return nil
	}))
}

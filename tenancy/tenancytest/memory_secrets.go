package tenancytest

import (
	"bytes"
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/heddle-gw/heddle/tenancy"
)

func cloneKey(k tenancy.Key) *tenancy.Key {
	k.Scopes = slices.Clone(k.Scopes)
	k.Tags = slices.Clone(k.Tags)
	return &k
}

// CreateKey implements tenancy.KeyStore.
func (m *Memory) CreateKey(_ context.Context, k *tenancy.Key) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.orgs[k.OrgID]; !ok {
		return notFound("org")
	}
	for _, x := range m.keys {
		if x.ID == k.ID || x.Hash == k.Hash {
			return tenancy.ErrConflict
		}
	}
	m.keys[k.ID] = *cloneKey(*k)
	return nil
}

// KeyByHash implements tenancy.KeyLookup.
func (m *Memory) KeyByHash(_ context.Context, hash string) (*tenancy.Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range m.keys {
		if k.Hash == hash {
			return cloneKey(k), nil
		}
	}
	return nil, notFound("key")
}

// TouchKeys implements tenancy.KeyLookup.
func (m *Memory) TouchKeys(_ context.Context, used map[string]time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failTouch != nil {
		return m.failTouch
	}
	for id, t := range used {
		if k, ok := m.keys[id]; ok {
			if k.LastUsedAt == nil || t.After(*k.LastUsedAt) {
				t := t
				k.LastUsedAt = &t
				m.keys[id] = k
			}
		}
	}
	return nil
}

// OrgKeys implements tenancy.KeyStore.
func (m *Memory) OrgKeys(_ context.Context, orgID string) ([]tenancy.Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []tenancy.Key
	for _, k := range m.keys {
		if k.OrgID == orgID {
			out = append(out, *cloneKey(k))
		}
	}
	sort.Slice(out, func(i, j int) bool { return older(out[j].CreatedAt, out[i].CreatedAt, out[j].ID, out[i].ID) })
	return out, nil
}

// OrgKey implements tenancy.KeyStore.
func (m *Memory) OrgKey(_ context.Context, orgID, id string) (*tenancy.Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.keys[id]
	if !ok || k.OrgID != orgID {
		return nil, notFound("key")
	}
	return cloneKey(k), nil
}

// UpdateKey implements tenancy.KeyStore.
func (m *Memory) UpdateKey(_ context.Context, k *tenancy.Key) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.keys[k.ID]
	if !ok || cur.OrgID != k.OrgID {
		return notFound("key")
	}
	cur.Name, cur.Scopes, cur.Policy, cur.Alpha = k.Name, slices.Clone(k.Scopes), k.Policy, k.Alpha
	cur.Limits, cur.ExpiresAt, cur.Tags = k.Limits, k.ExpiresAt, slices.Clone(k.Tags)
	m.keys[k.ID] = cur
	return nil
}

// RevokeKey implements tenancy.KeyStore.
func (m *Memory) RevokeKey(_ context.Context, orgID, id string, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.keys[id]
	if !ok || k.OrgID != orgID {
		return notFound("key")
	}
	if k.RevokedAt == nil {
		k.RevokedAt = &at
		m.keys[id] = k
	}
	return nil
}

// ReinstateKey implements tenancy.KeyStore.
func (m *Memory) ReinstateKey(_ context.Context, orgID, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.keys[id]
	if !ok || k.OrgID != orgID {
		return notFound("key")
	}
	k.SuspendedAt = nil
	m.keys[id] = k
	return nil
}

func cloneCred(c tenancy.Credential) *tenancy.Credential {
	c.Ciphertext = bytes.Clone(c.Ciphertext)
	return &c
}

func (m *Memory) checkDEKLocked(orgID string, version int64) error {
	dk, ok := m.dataKeys[orgID]
	if !ok || dk.Version != version {
		return tenancy.ErrDataKeyChanged
	}
	return nil
}

// CreateCredential implements tenancy.CredentialStore.
func (m *Memory) CreateCredential(_ context.Context, c *tenancy.Credential) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.checkDEKLocked(c.OrgID, c.DEKVersion); err != nil {
		return err
	}
	for _, x := range m.creds {
		if x.ID == c.ID || (x.OrgID == c.OrgID && x.Provider == c.Provider) {
			return tenancy.ErrConflict
		}
	}
	m.creds[c.ID] = *cloneCred(*c)
	return nil
}

// OrgCredentials implements tenancy.CredentialStore.
func (m *Memory) OrgCredentials(_ context.Context, orgID string) ([]tenancy.Credential, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []tenancy.Credential
	for _, c := range m.creds {
		if c.OrgID == orgID {
			out = append(out, *cloneCred(c))
		}
	}
	sort.Slice(out, func(i, j int) bool { return older(out[i].CreatedAt, out[j].CreatedAt, out[i].ID, out[j].ID) })
	return out, nil
}

// OrgCredential implements tenancy.CredentialStore.
func (m *Memory) OrgCredential(_ context.Context, orgID, id string) (*tenancy.Credential, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.creds[id]
	if !ok || c.OrgID != orgID {
		return nil, notFound("credential")
	}
	return cloneCred(c), nil
}

// CredentialByProvider implements tenancy.CredentialStore.
func (m *Memory) CredentialByProvider(_ context.Context, orgID, provider string) (*tenancy.Credential, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.creds {
		if c.OrgID == orgID && c.Provider == provider {
			return cloneCred(c), nil
		}
	}
	return nil, notFound("credential")
}

// UpdateCredentialSecret implements tenancy.CredentialStore.
func (m *Memory) UpdateCredentialSecret(_ context.Context, c *tenancy.Credential) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.creds[c.ID]
	if !ok || cur.OrgID != c.OrgID {
		return notFound("credential")
	}
	if err := m.checkDEKLocked(c.OrgID, c.DEKVersion); err != nil {
		return err
	}
	cur.Ciphertext, cur.LastFour, cur.DEKVersion, cur.RotatedAt = bytes.Clone(c.Ciphertext), c.LastFour, c.DEKVersion, c.RotatedAt
	m.creds[c.ID] = cur
	return nil
}

// DeleteCredential implements tenancy.CredentialStore.
func (m *Memory) DeleteCredential(_ context.Context, orgID, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.creds[id]
	if !ok || c.OrgID != orgID {
		return notFound("credential")
	}
	delete(m.creds, id)
	return nil
}

// DataKey implements tenancy.DataKeyStore.
func (m *Memory) DataKey(_ context.Context, orgID string) (*tenancy.DataKey, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	dk, ok := m.dataKeys[orgID]
	if !ok {
		return nil, notFound("data key")
	}
	dk.Wrapped = bytes.Clone(dk.Wrapped)
	return &dk, nil
}

// CreateDataKey implements tenancy.DataKeyStore.
func (m *Memory) CreateDataKey(_ context.Context, dk *tenancy.DataKey) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.orgs[dk.OrgID]; !ok {
		return notFound("org")
	}
	if _, ok := m.dataKeys[dk.OrgID]; ok {
		return tenancy.ErrConflict
	}
	c := *dk
	c.Wrapped = bytes.Clone(dk.Wrapped)
	m.dataKeys[dk.OrgID] = c
	return nil
}

// DataKeysAfter implements tenancy.DataKeyStore.
func (m *Memory) DataKeysAfter(_ context.Context, after string, limit int) ([]tenancy.DataKey, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []tenancy.DataKey
	for id, dk := range m.dataKeys {
		if id > after {
			dk.Wrapped = bytes.Clone(dk.Wrapped)
			out = append(out, dk)
		}
	}
	sort.Slice(out, func(i, j int) bool { return strings.Compare(out[i].OrgID, out[j].OrgID) < 0 })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// RewrapDataKey implements tenancy.DataKeyStore.
func (m *Memory) RewrapDataKey(_ context.Context, orgID string, version int64, oldWrapped, newWrapped []byte, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	dk, ok := m.dataKeys[orgID]
	if !ok || dk.Version != version || !bytes.Equal(dk.Wrapped, oldWrapped) {
		return tenancy.ErrConflict
	}
	dk.Wrapped, dk.UpdatedAt = bytes.Clone(newWrapped), at
	m.dataKeys[orgID] = dk
	return nil
}

// ReencryptDataKey implements tenancy.DataKeyStore; the store's lock is held
// across reseal, as the SQL store holds the data key row's.
func (m *Memory) ReencryptDataKey(_ context.Context, orgID string, oldVersion int64, reseal tenancy.Reseal) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.dataKeys[orgID]
	if !ok || cur.Version != oldVersion {
		return tenancy.ErrConflict
	}
	var creds []tenancy.Credential
	for _, c := range m.creds {
		if c.OrgID == orgID {
			creds = append(creds, *cloneCred(c))
		}
	}
	sort.Slice(creds, func(i, j int) bool { return older(creds[i].CreatedAt, creds[j].CreatedAt, creds[i].ID, creds[j].ID) })
	dk, out, err := reseal(creds)
	if err != nil {
		return err
	}
	if err := checkResealed(orgID, oldVersion, creds, dk, out); err != nil {
		return err
	}
	for _, c := range out {
		x := m.creds[c.ID]
		x.Ciphertext, x.DEKVersion = bytes.Clone(c.Ciphertext), c.DEKVersion
		m.creds[c.ID] = x
	}
	nd := *dk
	nd.Wrapped = bytes.Clone(dk.Wrapped)
	m.dataKeys[orgID] = nd
	return nil
}

// checkResealed checks what a reseal returned: the next version of the
// org's key and exactly the credentials it was given, under that version.
func checkResealed(orgID string, oldVersion int64, in []tenancy.Credential, dk *tenancy.DataKey, out []tenancy.Credential) error {
	if dk == nil || dk.OrgID != orgID || dk.Version != oldVersion+1 || len(out) != len(in) {
		return tenancy.ErrConflict
	}
	for i := range out {
		if out[i].ID != in[i].ID || out[i].OrgID != orgID || out[i].DEKVersion != dk.Version {
			return tenancy.ErrConflict
		}
	}
	return nil
}

package tenancy

import (
	"context"
	"fmt"
)

// contentAD binds a stored prompt or response to its org and request. It
// has four '|'-separated parts where a credential's has three (no part may
// contain '|', see checkADPart), so no credential's associated data can ever
// equal it, whatever its id and provider name.
func contentAD(orgID, requestID string) []byte {
	return []byte("content|v1|" + orgID + "|" + requestID)
}

// SealContent encrypts a request's stored content (prompt or response, SPEC
// 8) under orgID's data key with associated data
// "content|v1|org_id|request_id",
// and returns the ciphertext and the DEK version used. Keep the version with
// the ciphertext: OpenContent needs it.
func (v *Vault) SealContent(ctx context.Context, orgID, requestID string, plaintext []byte) ([]byte, int64, error) {
	for _, p := range [][2]string{{"org_id", orgID}, {"request_id", requestID}} {
		if err := checkADPart(p[0], p[1]); err != nil {
			return nil, 0, err
		}
	}
	e, err := v.dek(ctx, orgID, 0)
	if err != nil {
		return nil, 0, err
	}
	ct, err := e.aead.Encrypt(plaintext, contentAD(orgID, requestID))
	if err != nil {
		return nil, 0, fmt.Errorf("%w: seal content: %w", ErrVault, err)
	}
	return ct, e.version, nil
}

// OpenContent decrypts content sealed by SealContent. Ciphertext moved to
// another org or request fails with ErrVault; one sealed under a DEK version
// that is no longer the org's (after ReencryptOrg) is ErrDataKeyChanged and
// cannot be opened any more. Master-key rotation (RewrapAll) keeps the DEK
// version, so content stays readable across it.
func (v *Vault) OpenContent(ctx context.Context, orgID, requestID string, dekVersion int64, ciphertext []byte) ([]byte, error) {
	e, err := v.dek(ctx, orgID, max(dekVersion, 1))
	if err != nil {
		return nil, err
	}
	pt, err := e.aead.Decrypt(ciphertext, contentAD(orgID, requestID))
	if err != nil {
		return nil, fmt.Errorf("%w: content of request %s does not decrypt for org %s", ErrVault, requestID, orgID)
	}
	return pt, nil
}

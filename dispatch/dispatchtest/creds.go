package dispatchtest

import (
	"context"
	"sync"

	"github.com/heddle-gw/heddle/dispatch"
)

// Credentials is a static dispatch.Credentials: the same credentials per
// provider for every organisation; a provider missing from the map is not
// configured. It counts lookups.
type Credentials struct {
	mu    sync.Mutex
	m     map[string]dispatch.Credential
	calls int
}

var _ dispatch.Credentials = (*Credentials)(nil)

// NewCredentials returns credentials for the given providers.
func NewCredentials(m map[string]dispatch.Credential) *Credentials {
	c := &Credentials{m: make(map[string]dispatch.Credential, len(m))}
	for k, v := range m {
		c.m[k] = v
	}
	return c
}

// Resolve returns the provider's credential or dispatch.ErrNotConfigured.
func (c *Credentials) Resolve(ctx context.Context, orgID, provider string) (dispatch.Credential, error) {
	if err := ctx.Err(); err != nil {
		return dispatch.Credential{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	cred, ok := c.m[provider]
	if !ok {
		return dispatch.Credential{}, dispatch.ErrNotConfigured
	}
	return cred, nil
}

// Set adds or replaces a provider's credential.
func (c *Credentials) Set(provider string, cred dispatch.Credential) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[provider] = cred
}

package app

import (
	"context"
	"net/http"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/provider/openaicompat"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenantmodel"
	tmsql "github.com/heddle-gw/heddle/tenantmodel/sqlstore"
)

// wireTenantModels builds the tenant providers and models service (SPEC 4).
// Their secrets are BYOK credentials kept by a second tenancy.Credentials
// that accepts only names that are not catalog providers (the main one
// accepts only catalog providers), sharing the vault and resolver cache.
func (c *components) wireTenantModels() {
	creds := tenancy.NewCredentials(c.store, c.vault, tenancy.CredentialsConfig{
		Resolver: c.resolver, AllowPrivateBaseURL: c.cfg.AllowPrivate,
		ProviderAllowed: func(name string) bool { _, err := c.catalog.Provider(name); return err != nil },
	})
	c.tenantModels = tenantmodel.NewService(tmsql.New(c.db), creds, c.catalog, tenantmodel.Config{})
}

// tenantProviderFor serves the targets of tenant providers: OpenAI Chat
// targets that carry their own base URL, through the OpenAI-compatible
// adapter (its private-address check on, unless private upstreams are
// allowed, on top of hc's dial-time guard).
func tenantProviderFor(hc *http.Client, allowPrivate bool) func(dispatch.Target) dispatch.Provider {
	compat := openaicompat.New(openaicompat.Config{AllowPrivate: allowPrivate}, hc)
	return func(t dispatch.Target) dispatch.Provider {
		if t.Format == llm.FormatChat && t.BaseURL != "" {
			return compat
		}
		return nil
	}
}

// tenantSource presents an organisation's tenant models to the gateway.
type tenantSource struct{ s *tenantmodel.Service }

var _ gateway.TenantModels = tenantSource{}

func (x tenantSource) OrgModels(ctx context.Context, orgID string) ([]gateway.TenantModel, error) {
	set, err := x.s.Org(ctx, orgID)
	if err != nil {
		return nil, err
	}
	out := make([]gateway.TenantModel, 0, len(set.Models))
	for _, m := range set.Models {
		_, p, ok := set.Model(m.ID)
		if !ok {
			continue
		}
		out = append(out, gateway.TenantModel{
			Model: m.Catalog(),
			Target: dispatch.Target{Model: m.ID, Provider: p.Name, Upstream: m.Upstream, Format: m.Format,
				BaseURL: p.BaseURL},
		})
	}
	return out, nil
}

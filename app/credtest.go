package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/llm"
)

// credentialTester checks a credential before (or after) it is stored by
// sending a one-token probe to the cheapest catalog model bound to its
// provider, through a throwaway dispatch executor whose only credential is
// the one under test. Nothing is recorded.
type credentialTester struct {
	catalog   *catalog.Catalog
	providers map[string]dispatch.Provider
	codecs    map[llm.Format]llm.Codec
	logger    *slog.Logger
	// tenant finds the organisation's own models (nil: none), so a tenant
	// provider's credential is probed with its cheapest model through
	// providerFor's adapter.
	tenant      gateway.TenantModels
	providerFor func(dispatch.Target) dispatch.Provider
}

// staticCredential resolves every provider to one credential.
type staticCredential dispatch.Credential

func (s staticCredential) Resolve(context.Context, string, string) (dispatch.Credential, error) {
	return dispatch.Credential(s), nil
}

// Test sends the probe; the error message is safe to show (no secret).
func (t credentialTester) Test(ctx context.Context, orgID, provider, baseURL, secret string) error {
	target, ok := t.probeTarget(provider)
	if !ok {
		if target, ok = t.tenantProbe(ctx, orgID, provider); !ok {
			return fmt.Errorf("no model is bound to provider %q (add one of your models to it first)", provider)
		}
	}
	ex := dispatch.NewExecutor(dispatch.Config{MaxAttempts: 1, FirstByteTimeout: 15 * time.Second}, dispatch.Deps{
		Providers: t.providers, ProviderFor: t.providerFor, Codecs: t.codecs, Logger: t.logger,
		Credentials: staticCredential{ID: "credential-test", Secret: secret, BaseURL: baseURL},
	})
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	req := &llm.Request{
		Model: target.Upstream, MaxTokens: 1,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "ping"}}}},
	}
	_, err := ex.Buffered(ctx, dispatch.Meta{RequestID: "credential-test", OperationID: "credential-test/0",
		Provenance: dispatch.Provenance{Purpose: dispatch.PurposeProbe}}, dispatch.Plan{Targets: []dispatch.Target{target}, MaxAttempts: 1}, req)
	var up *dispatch.UpstreamError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &up):
		return fmt.Errorf("%s answered %d (%s)", provider, up.Status, up.Reason)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s did not answer within 20s", provider)
	}
	return fmt.Errorf("%s could not be reached", provider)
}

// probeTarget is the cheapest model's binding to provider (or to a provider
// using provider's credential).
func (t credentialTester) probeTarget(provider string) (dispatch.Target, bool) {
	var best dispatch.Target
	bestPrice := -1.0
	for _, m := range t.catalog.Models() {
		for _, b := range m.Bindings {
			p, err := t.catalog.Provider(b.Provider)
			if err != nil || p.CredentialName() != provider {
				continue
			}
			price := catalog.PriceOf(m, b)
			if cost := price.Input + price.Output; bestPrice < 0 || cost < bestPrice {
				bestPrice = cost
				best = dispatch.Target{Model: m.ID, Provider: p.Name, Upstream: b.Upstream, Format: p.Format, BaseURL: p.BaseURL}
			}
		}
	}
	return best, bestPrice >= 0
}

// tenantProbe is the cheapest of orgID's own models on its provider named
// provider, with the credential's base URL left to the credential.
func (t credentialTester) tenantProbe(ctx context.Context, orgID, provider string) (dispatch.Target, bool) {
	if t.tenant == nil || orgID == "" {
		return dispatch.Target{}, false
	}
	ms, err := t.tenant.OrgModels(ctx, orgID)
	if err != nil {
		return dispatch.Target{}, false
	}
	var best dispatch.Target
	bestPrice := -1.0
	for _, m := range ms {
		if m.Target.Provider != provider {
			continue
		}
		if cost := m.Model.Price.Input + m.Model.Price.Output; bestPrice < 0 || cost < bestPrice {
			best, bestPrice = m.Target, cost
		}
	}
	return best, bestPrice >= 0
}

package gateway

import (
	"context"

	"github.com/heddle-gw/heddle/catalog"
)

// ModelsFor lists the catalog models the caller's organisation can reach
// (a binding to a provider it has a credential for), in catalog order.
// Without a ProviderSet every model is listed.
func (s *Service) ModelsFor(ctx context.Context, c Caller) ([]catalog.Model, error) {
	all := s.d.Catalog.Models()
	if s.d.Providers == nil {
		return all, nil
	}
	usable, err := s.d.Providers.UsableProviders(ctx, c.OrgID)
	if err != nil {
		return nil, err
	}
	var out []catalog.Model
	for _, m := range all {
		for _, b := range m.Bindings {
			if usable[b.Provider] {
				out = append(out, m)
				break
			}
		}
	}
	return out, nil
}

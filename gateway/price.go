package gateway

import (
	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
)

// Pricer is the one price list of attempts (dispatch's attempt events) and
// requests (the request record): a catalog model at the price of the
// binding that served it, any other target (an organisation's own model)
// at the price its plan carries (Target.Price). It does no I/O.
type Pricer struct{ Catalog *catalog.Catalog }

var _ dispatch.Pricer = Pricer{}

// CostMicros prices u served by t.
func (p Pricer) CostMicros(t dispatch.Target, u llm.Usage) int64 {
	return int64(billing.Cost(u, p.price(t)))
}

func (p Pricer) price(t dispatch.Target) catalog.Price {
	m, err := p.Catalog.Lookup(t.Model)
	if err != nil {
		return p.embeddingPrice(t)
	}
	for _, b := range m.Bindings {
		if b.Provider == t.Provider && b.Upstream == t.Upstream {
			return catalog.PriceOf(m, b)
		}
	}
	return m.Price
}

// embeddingPrice prices an embedding model's target like a chat model's;
// any other target at its own price.
func (p Pricer) embeddingPrice(t dispatch.Target) catalog.Price {
	m, err := p.Catalog.Embedding(t.Model)
	if err != nil {
		return t.Price
	}
	for _, b := range m.Bindings {
		if b.Provider == t.Provider && b.Upstream == t.Upstream {
			return catalog.EmbeddingPriceOf(m, b)
		}
	}
	return m.Price
}

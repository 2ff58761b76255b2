package gateway

import (
	"sync"
	"time"

	"github.com/heddle-gw/heddle/catalog"
)

// PriceMemo remembers the prices of organisations' own models as turns
// resolve them, so the attempt sink prices those attempts from memory (it
// runs on one background worker, which must not wait on a database). Safe
// for concurrent use; share one between the Service (Deps.TenantPrices) and
// the AttemptSink (Prices).
type PriceMemo struct {
	mu sync.Mutex
	m  map[priceKey]memoPrice
	// now is the clock (time.Now), replaced in tests.
	now func() time.Time
}

type priceKey struct{ org, model string }

type memoPrice struct {
	price catalog.Price
	at    time.Time
}

// Memo bounds: past maxMemo entries, those not used for memoTTL go.
const (
	maxMemo = 10000
	memoTTL = 10 * time.Minute
)

// NewPriceMemo returns an empty memo.
func NewPriceMemo() *PriceMemo { return &PriceMemo{m: map[priceKey]memoPrice{}, now: time.Now} }

// put records orgID's price of model (nil memo: nothing).
func (p *PriceMemo) put(orgID, model string, price catalog.Price) {
	if p == nil {
		return
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.m) >= maxMemo {
		for k, v := range p.m {
			if now.Sub(v.at) > memoTTL {
				delete(p.m, k)
			}
		}
	}
	p.m[priceKey{orgID, model}] = memoPrice{price: price, at: now}
}

// get returns orgID's price of model, if a turn resolved it lately.
func (p *PriceMemo) get(orgID, model string) (catalog.Price, bool) {
	if p == nil {
		return catalog.Price{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.m[priceKey{orgID, model}]
	return v.price, ok
}

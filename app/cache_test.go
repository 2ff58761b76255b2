package app

import (
	"context"
	"log/slog"
	"net/http"
	"testing"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

// renamed is an embedder under another id (a stand-in for a pretrained one).
type renamed struct{ routing.Embedder }

func (renamed) ID() string { return "hugot-test" }

// TestWireCacheSemanticTier: with HEDDLE_CACHE_SEMANTIC auto the cache
// never embeds with lexical-v1 (the tier does not pay there) and embeds
// with another embedder; on and off force it.
func TestWireCacheSemanticTier(t *testing.T) {
	def, err := routing.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	lex, err := def.LexicalEmbedder()
	if err != nil {
		t.Fatal(err)
	}
	scope := routing.CacheScope{OrgID: "o", KeyID: "k", Format: llm.FormatChat}
	req := &llm.Request{Model: "m", MaxTokens: 9, Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "What is the capital of France?"}}}}}
	resp := &llm.Response{ID: "r", StopReason: llm.StopEnd, Content: []llm.Part{{Type: llm.PartText, Text: "Paris."}}}
	for _, tc := range []struct {
		name, setting string
		emb           routing.Embedder
		embeds        bool
	}{
		{"auto lexical", "auto", lex, false},
		{"auto other", "auto", renamed{lex}, true},
		{"on lexical", "on", lex, true},
		{"off other", "off", renamed{lex}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &components{cfg: Config{CacheSemantic: tc.setting, CacheThreshold: 0.97}, logger: slog.New(slog.DiscardHandler)}
			counted := &routingtest.CountingEmbedder{Embedder: tc.emb}
			cache, err := c.wireCache(counted)
			if err != nil {
				t.Fatal(err)
			}
			ok, err := cache.Store(context.Background(), routing.StoreInput{Scope: scope, Request: req, Status: http.StatusOK, Response: resp})
			if err != nil || !ok {
				t.Fatalf("Store = %v, %v", ok, err)
			}
			if got := counted.N.Load() > 0; got != tc.embeds {
				t.Fatalf("store embedded %d times, want embedding %v", counted.N.Load(), tc.embeds)
			}
		})
	}
}

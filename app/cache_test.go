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

// TestWireCacheSemanticTier: by default (HEDDLE_CACHE_SEMANTIC off) the
// cache store path never embeds; on, it does.
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
		{"default", "", lex, false},
		{"off", "off", lex, false},
		{"on", "on", lex, true},
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

package cacheredis_test

import (
	"context"
	"testing"

	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/cacheredis"
)

func question(q string) *llm.Request {
	return &llm.Request{Model: "auto", System: []llm.Part{{Type: llm.PartText, Text: "You are terse."}}, MaxTokens: 256,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: q}}}}}
}

// TestCacheOverRedis runs the semantic cache on the real store: a repeat is
// served (exact and semantic), and another user, key, org or format is
// never served an answer stored for alice, even for an identical prompt.
func TestCacheOverRedis(t *testing.T) {
	ctx := context.Background()
	r := testdb.NewRedis(t)
	rdb, prefix := r.Client, r.Prefix
	b, err := routing.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	emb, err := b.LexicalEmbedder()
	if err != nil {
		t.Fatal(err)
	}
	c, err := routing.NewCache(cacheredis.New(rdb, prefix), emb, routing.CacheConfig{})
	if err != nil {
		t.Fatal(err)
	}
	alice := routing.CacheScope{OrgID: "org_1", KeyID: "key_1", User: "alice", Format: llm.FormatChat}
	resp := &llm.Response{ID: "c1", Model: "gpt-5-mini", Content: []llm.Part{{Type: llm.PartText, Text: "Canberra."}},
		StopReason: llm.StopEnd, Usage: llm.Usage{Input: 20, Output: 3}}
	ok, err := c.Store(ctx, routing.StoreInput{Scope: alice, Request: question("What is the capital of Australia?"),
		Status: 200, Response: resp, Body: []byte(`{"id":"c1"}`), Model: "gpt-5-mini", Provider: "openai"})
	if err != nil || !ok {
		t.Fatalf("Store = %v, %v", ok, err)
	}

	for _, tc := range []struct {
		name  string
		scope routing.CacheScope
		q     string
		want  routing.HitKind
	}{
		{"exact repeat", alice, "What is the capital of Australia?", routing.HitExact},
		{"within the threshold", alice, "what is the capital of  AUSTRALIA?", routing.HitSemantic},
		{"another user", routing.CacheScope{OrgID: "org_1", KeyID: "key_1", User: "bob", Format: llm.FormatChat},
			"What is the capital of Australia?", routing.HitMiss},
		{"another key", routing.CacheScope{OrgID: "org_1", KeyID: "key_2", User: "alice", Format: llm.FormatChat},
			"What is the capital of Australia?", routing.HitMiss},
		{"another org", routing.CacheScope{OrgID: "org_2", KeyID: "key_1", User: "alice", Format: llm.FormatChat},
			"What is the capital of Australia?", routing.HitMiss},
		{"another format", routing.CacheScope{OrgID: "org_1", KeyID: "key_1", User: "alice", Format: llm.FormatAnthropic},
			"What is the capital of Australia?", routing.HitMiss},
		{"another question", alice, "What is the capital of Austria?", routing.HitMiss},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, h, err := c.Lookup(ctx, routing.LookupInput{Scope: tc.scope, Request: question(tc.q)})
			if err != nil || h.Kind != tc.want {
				t.Fatalf("Lookup = %+v, %v; want %s", h, err, tc.want)
			}
			if tc.want == routing.HitMiss {
				if e.Response != nil {
					t.Fatalf("a miss returned %+v", e.Response)
				}
				return
			}
			if e.Response == nil || e.Response.Content[0].Text != "Canberra." || string(e.Body) != `{"id":"c1"}` ||
				e.Model != "gpt-5-mini" || e.Provider != "openai" || e.Format != llm.FormatChat {
				t.Fatalf("entry = %+v", e)
			}
		})
	}
}

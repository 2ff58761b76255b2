package routing_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func lexical(t testing.TB) routing.Embedder {
	t.Helper()
	b, err := routing.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	e, err := b.LexicalEmbedder()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

type cacheEnv struct {
	cache *routing.Cache
	store *routing.MemoryCacheStore
	clock *routingtest.Clock
	emb   *routingtest.CountingEmbedder
}

func newCacheEnv(t *testing.T, cfg routing.CacheConfig) cacheEnv {
	t.Helper()
	clock := routingtest.NewClock(t0)
	store := routing.NewMemoryCacheStore(0, 0, clock.Now)
	emb := &routingtest.CountingEmbedder{Embedder: lexical(t)}
	cfg.Now = clock.Now
	c, err := routing.NewCache(store, emb, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cacheEnv{cache: c, store: store, clock: clock, emb: emb}
}

var aliceScope = routing.CacheScope{OrgID: "org_1", KeyID: "key_1", User: "alice", Format: llm.FormatAnthropic}

// ask is a request with a system prompt, a tool, one earlier exchange and a
// last user message q.
func ask(q string) *llm.Request {
	temp := 0.2
	return &llm.Request{
		Model: "auto", System: []llm.Part{text("You are a geography tutor.")}, Tools: bashTool,
		MaxTokens: 512, Temperature: &temp, User: "alice",
		Messages: []llm.Message{user(text("hi")), assistant(text("Hello! Ask me anything.")), user(text(q))},
	}
}

func answer(s string) *llm.Response {
	return &llm.Response{ID: "msg_1", Model: "claude-haiku-4-5", Content: []llm.Part{text(s)},
		StopReason: llm.StopEnd, Usage: llm.Usage{Input: 40, Output: 9, CacheRead: 100}}
}

func store(t *testing.T, env cacheEnv, scope routing.CacheScope, req *llm.Request, resp *llm.Response) {
	t.Helper()
	ok, err := env.cache.Store(context.Background(), routing.StoreInput{Scope: scope, Request: req, Status: http.StatusOK,
		Response: resp, Body: []byte(`{"raw":"` + resp.Content[0].Text + `"}`), Model: "claude-haiku-4-5", Provider: "anthropic"})
	if err != nil || !ok {
		t.Fatalf("Store = %v, %v; want stored", ok, err)
	}
}

func lookup(t *testing.T, env cacheEnv, scope routing.CacheScope, req *llm.Request) (routing.Entry, routing.Hit) {
	t.Helper()
	e, h, err := env.cache.Lookup(context.Background(), routing.LookupInput{Scope: scope, Request: req})
	if err != nil {
		t.Fatalf("Lookup: %v", err)
	}
	return e, h
}

func TestCacheExactHit(t *testing.T) {
	env := newCacheEnv(t, routing.CacheConfig{})
	req := ask("What is the capital of France?")
	resp := answer("Paris.")
	store(t, env, aliceScope, req, resp)
	env.clock.Advance(time.Minute)

	again := ask("What is the capital of France?")
	again.Stream, again.StreamUsage = true, true // streaming callers read the cache too
	again.System[0].CacheControl = "ephemeral"   // cache marks do not change the answer
	e, h := lookup(t, env, aliceScope, again)
	if h.Kind != routing.HitExact || h.Similarity != 1 || h.Threshold != routing.DefaultCacheThreshold || h.Keys.Exact == "" {
		t.Fatalf("hit = %+v, want exact", h)
	}
	want := routing.Entry{Format: llm.FormatAnthropic, Model: "claude-haiku-4-5", Provider: "anthropic",
		StoredAt: t0, Response: resp, Body: []byte(`{"raw":"Paris."}`)}
	if !reflect.DeepEqual(e, want) {
		t.Fatalf("entry = %+v\nwant %+v", e, want)
	}
}

func TestCacheSemanticHit(t *testing.T) {
	env := newCacheEnv(t, routing.CacheConfig{})
	store(t, env, aliceScope, ask("What is the capital of France?"), answer("Paris."))
	embeds := env.emb.N.Load()
	// Same words, other case and spacing: a different exact key, the same
	// lexical embedding.
	e, h := lookup(t, env, aliceScope, ask("what is  the capital of FRANCE?"))
	if h.Kind != routing.HitSemantic || h.Similarity < 0.999 || e.Response.Content[0].Text != "Paris." {
		t.Fatalf("hit = %+v, entry %+v; want a semantic hit on Paris", h, e.Response)
	}
	if got := env.emb.N.Load() - embeds; got != 1 {
		t.Fatalf("lookup embedded %d times, want 1", got)
	}
	// Below the threshold: a real paraphrase is a miss with lexical-v1.
	_, h = lookup(t, env, aliceScope, ask("Which city is France's capital?"))
	if h.Kind != routing.HitMiss || h.Similarity <= 0 || h.Similarity >= routing.DefaultCacheThreshold {
		t.Fatalf("paraphrase hit = %+v, want a miss with the similarity compared", h)
	}
	// A lower threshold lets it hit.
	low := newCacheEnv(t, routing.CacheConfig{Threshold: 0.3})
	store(t, low, aliceScope, ask("What is the capital of France?"), answer("Paris."))
	if _, h := lookup(t, low, aliceScope, ask("Which city is France's capital?")); h.Kind != routing.HitSemantic || h.Threshold != 0.3 {
		t.Fatalf("threshold 0.3 hit = %+v, want semantic", h)
	}
}

func TestCacheNeverCrossesPartitions(t *testing.T) {
	q := "What is the capital of France?"
	other := func(f func(r *llm.Request)) *llm.Request { r := ask(q); f(r); return r }
	scope := func(f func(s *routing.CacheScope)) routing.CacheScope { s := aliceScope; f(&s); return s }
	tests := []struct {
		name  string
		scope routing.CacheScope
		req   *llm.Request
	}{
		{"another end user, identical prompt", scope(func(s *routing.CacheScope) { s.User = "bob" }), ask(q)},
		{"the key's anonymous user", scope(func(s *routing.CacheScope) { s.User = "" }), ask(q)},
		{"another key", scope(func(s *routing.CacheScope) { s.KeyID = "key_2" }), ask(q)},
		{"another org", scope(func(s *routing.CacheScope) { s.OrgID = "org_2" }), ask(q)},
		{"another wire format", scope(func(s *routing.CacheScope) { s.Format = llm.FormatChat }), ask(q)},
		{"another system prompt", aliceScope, other(func(r *llm.Request) { r.System = []llm.Part{text("You are a pirate.")} })},
		{"no system prompt", aliceScope, other(func(r *llm.Request) { r.System = nil })},
		{"other tools", aliceScope, other(func(r *llm.Request) { r.Tools = nil })},
		{"a tool's schema", aliceScope, other(func(r *llm.Request) {
			r.Tools = []llm.Tool{{Name: "Bash", Description: "run a command", Parameters: []byte(`{"type":"string"}`)}}
		})},
		{"other history", aliceScope, other(func(r *llm.Request) { r.Messages[1] = assistant(text("Bonjour!")) })},
		{"shorter history", aliceScope, other(func(r *llm.Request) { r.Messages = r.Messages[2:] })},
		{"temperature", aliceScope, other(func(r *llm.Request) { v := 0.9; r.Temperature = &v })},
		{"max tokens", aliceScope, other(func(r *llm.Request) { r.MaxTokens = 100 })},
		{"model", aliceScope, other(func(r *llm.Request) { r.Model = "claude-opus-4-5" })},
		{"stop sequences", aliceScope, other(func(r *llm.Request) { r.Stop = []string{"\n"} })},
		{"reminder in the last message", aliceScope, other(func(r *llm.Request) {
			r.Messages[2] = user(text("<system-reminder>today is Monday</system-reminder>" + q))
		})},
		{"different numbers", aliceScope, other(func(r *llm.Request) { r.Messages[0] = user(text("hi")); r.Messages[2] = user(text("What is 17 x 24?")) })},
	}
	env := newCacheEnv(t, routing.CacheConfig{})
	store(t, env, aliceScope, ask(q), answer("Paris."))
	numbers := ask("What is 17 x 23?")
	store(t, env, aliceScope, numbers, answer("391"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e, h := lookup(t, env, tt.scope, tt.req); h.Kind != routing.HitMiss || e.Response != nil {
				t.Fatalf("hit = %+v, entry %+v; want a miss", h, e.Response)
			}
		})
	}

	t.Run("two users keep their own answers", func(t *testing.T) {
		bob := aliceScope
		bob.User = "bob"
		store(t, env, bob, ask(q), answer("Paris, as Bob was told."))
		if e, _ := lookup(t, env, aliceScope, ask(q)); e.Response.Content[0].Text != "Paris." {
			t.Fatalf("alice got %q", e.Response.Content[0].Text)
		}
		if e, _ := lookup(t, env, bob, ask(q)); e.Response.Content[0].Text != "Paris, as Bob was told." {
			t.Fatalf("bob got %q", e.Response.Content[0].Text)
		}
	})
}

func TestCacheBypass(t *testing.T) {
	req := ask("What is the capital of France?")
	tests := []struct {
		name         string
		h            http.Header
		org          bool
		reason       string
		storeAllowed bool
	}{
		{"no-cache", header("Cache-Control", "no-cache"), false, "no-cache", false},
		{"no-cache among directives", header("Cache-Control", "max-age=0, No-Cache"), false, "no-cache", false},
		{"pragma", header("Pragma", "no-cache"), false, "no-cache", false},
		{"no-store", header("Cache-Control", "no-store"), false, "no-store", false},
		{"org setting", nil, true, "org", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newCacheEnv(t, routing.CacheConfig{})
			store(t, env, aliceScope, req, answer("Paris."))
			e, h, err := env.cache.Lookup(context.Background(), routing.LookupInput{Scope: aliceScope, Request: req, Header: tt.h, Bypass: tt.org})
			if err != nil || h.Kind != routing.HitBypass || h.Reason != tt.reason || e.Response != nil {
				t.Fatalf("Lookup = %+v, %v; want bypass %q", h, err, tt.reason)
			}
			fresh := ask("And of Spain?")
			embeds := env.emb.N.Load()
			ok, err := env.cache.Store(context.Background(), routing.StoreInput{Scope: aliceScope, Request: fresh, Header: tt.h,
				Bypass: tt.org, Status: 200, Response: answer("Madrid.")})
			if err != nil || ok != tt.storeAllowed {
				t.Fatalf("Store = %v, %v; want %v", ok, err, tt.storeAllowed)
			}
			if n := env.emb.N.Load(); n != embeds {
				t.Fatalf("a bypassed Store embedded %d times", n-embeds)
			}
			_, h = lookup(t, env, aliceScope, fresh)
			if (h.Kind == routing.HitExact) != tt.storeAllowed {
				t.Fatalf("after Store, lookup = %+v", h)
			}
		})
	}
}

func TestCacheStoresOnlyComplete200(t *testing.T) {
	stop := func(s llm.StopReason) *llm.Response { r := answer("x"); r.StopReason = s; return r }
	tests := []struct {
		name   string
		status int
		resp   *llm.Response
		want   bool
	}{
		{"200 end_turn", 200, stop(llm.StopEnd), true},
		{"200 tool_use", 200, stop(llm.StopToolUse), true},
		{"200 max_tokens", 200, stop(llm.StopMaxTokens), true},
		{"200 stop_sequence", 200, stop(llm.StopSequence), true},
		{"200 error stop", 200, stop(llm.StopError), false},
		{"200 refusal", 200, stop(llm.StopRefusal), false},
		{"200 without stop reason", 200, stop(""), false},
		{"200 nil response", 200, nil, false},
		{"500", 500, stop(llm.StopEnd), false},
		{"429", 429, stop(llm.StopEnd), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newCacheEnv(t, routing.CacheConfig{})
			req := ask("What is the capital of France?")
			ok, err := env.cache.Store(context.Background(), routing.StoreInput{Scope: aliceScope, Request: req, Status: tt.status, Response: tt.resp})
			if err != nil || ok != tt.want {
				t.Fatalf("Store = %v, %v; want %v", ok, err, tt.want)
			}
			if _, h := lookup(t, env, aliceScope, req); (h.Kind == routing.HitExact) != tt.want {
				t.Fatalf("lookup after Store = %+v", h)
			}
			if n := env.store.Len(); (n > 0) != tt.want {
				t.Fatalf("store holds %d items", n)
			}
		})
	}
}

func TestCacheTTL(t *testing.T) {
	env := newCacheEnv(t, routing.CacheConfig{TTL: 10 * time.Minute})
	store(t, env, aliceScope, ask("What is the capital of France?"), answer("Paris."))
	env.clock.Advance(9 * time.Minute)
	if _, h := lookup(t, env, aliceScope, ask("what is the capital of FRANCE?")); h.Kind != routing.HitSemantic {
		t.Fatalf("before the TTL: %+v, want a semantic hit", h)
	}
	env.clock.Advance(2 * time.Minute)
	for _, q := range []string{"What is the capital of France?", "what is the capital of FRANCE?"} {
		if _, h := lookup(t, env, aliceScope, ask(q)); h.Kind != routing.HitMiss {
			t.Fatalf("after the TTL, %q: %+v, want a miss", q, h)
		}
	}
}

func TestCacheKeysReused(t *testing.T) {
	env := newCacheEnv(t, routing.CacheConfig{})
	req := ask("What is the capital of France?")
	_, h := lookup(t, env, aliceScope, req)
	if h.Kind != routing.HitMiss || h.Keys.Partition == "" || len(h.Keys.Vector) == 0 {
		t.Fatalf("miss = %+v, want keys with a vector", h)
	}
	n := env.emb.N.Load()
	ok, err := env.cache.Store(context.Background(), routing.StoreInput{Scope: aliceScope, Request: req, Keys: &h.Keys,
		Status: 200, Response: answer("Paris.")})
	if err != nil || !ok || env.emb.N.Load() != n {
		t.Fatalf("Store with keys = %v, %v, %d more embeds; want stored with none", ok, err, env.emb.N.Load()-n)
	}
	// Keys of another request are ignored, not trusted.
	other := ask("What is the capital of Spain?")
	if _, err := env.cache.Store(context.Background(), routing.StoreInput{Scope: aliceScope, Request: other, Keys: &h.Keys,
		Status: 200, Response: answer("Madrid.")}); err != nil {
		t.Fatal(err)
	}
	if e, _ := lookup(t, env, aliceScope, req); e.Response.Content[0].Text != "Paris." {
		t.Fatalf("foreign keys overwrote the entry: %q", e.Response.Content[0].Text)
	}
}

func TestCacheErrors(t *testing.T) {
	ctx := context.Background()
	req := ask("What is the capital of France?")
	failing, err := routing.NewCache(routingtest.FailingCacheStore{}, lexical(t), routing.CacheConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if e, h, err := failing.Lookup(ctx, routing.LookupInput{Scope: aliceScope, Request: req}); !errors.Is(err, routing.ErrCacheStore) ||
		!errors.Is(err, routingtest.ErrStoreDown) || h.Kind != routing.HitMiss || e.Response != nil {
		t.Fatalf("Lookup on a failing store = %+v, %v; want a miss wrapping ErrCacheStore", h, err)
	}
	if ok, err := failing.Store(ctx, routing.StoreInput{Scope: aliceScope, Request: req, Status: 200, Response: answer("x")}); ok ||
		!errors.Is(err, routing.ErrCacheStore) {
		t.Fatalf("Store on a failing store = %v, %v", ok, err)
	}

	env := newCacheEnv(t, routing.CacheConfig{})
	for _, bad := range []routing.CacheScope{{KeyID: "k", Format: llm.FormatChat}, {OrgID: "o", Format: llm.FormatChat},
		{OrgID: "o", KeyID: "k"}, {OrgID: "o", KeyID: "k", Format: "smtp"}} {
		if _, _, err := env.cache.Lookup(ctx, routing.LookupInput{Scope: bad, Request: req}); !errors.Is(err, routing.ErrCacheScope) {
			t.Fatalf("Lookup with scope %+v = %v, want ErrCacheScope", bad, err)
		}
		if _, err := env.cache.Store(ctx, routing.StoreInput{Scope: bad, Request: req, Status: 200, Response: answer("x")}); !errors.Is(err, routing.ErrCacheScope) {
			t.Fatalf("Store with scope %+v = %v, want ErrCacheScope", bad, err)
		}
	}
	_, h := lookup(t, env, aliceScope, req)
	env.store.Set(ctx, h.Keys.Exact, []byte("not json"), time.Hour)
	if _, h, err := env.cache.Lookup(ctx, routing.LookupInput{Scope: aliceScope, Request: req}); !errors.Is(err, routing.ErrCacheEntry) || h.Kind != routing.HitMiss {
		t.Fatalf("Lookup of a corrupt entry = %+v, %v; want a miss wrapping ErrCacheEntry", h, err)
	}
	for _, th := range []float64{-0.1, 1.01} {
		if _, err := routing.NewCache(env.store, nil, routing.CacheConfig{Threshold: th}); !errors.Is(err, routing.ErrUsage) {
			t.Fatalf("NewCache(threshold %v) = %v, want ErrUsage", th, err)
		}
	}
	if _, err := routing.NewCache(nil, nil, routing.CacheConfig{}); !errors.Is(err, routing.ErrUsage) {
		t.Fatalf("NewCache(nil store) = %v, want ErrUsage", err)
	}
}

func TestNilCacheIsDisabled(t *testing.T) {
	var c *routing.Cache
	req := ask("What is the capital of France?")
	if e, h, err := c.Lookup(context.Background(), routing.LookupInput{Scope: aliceScope, Request: req}); err != nil ||
		h.Kind != routing.HitBypass || h.Reason != "disabled" || e.Response != nil {
		t.Fatalf("nil cache Lookup = %+v, %v", h, err)
	}
	if ok, err := c.Store(context.Background(), routing.StoreInput{Scope: aliceScope, Request: req, Status: 200, Response: answer("x")}); ok || err != nil {
		t.Fatalf("nil cache Store = %v, %v", ok, err)
	}
}

// BenchmarkCacheLookup is one semantic-tier miss (exact get, embed of a
// 1 kB last message, partition read of 32 neighbors) on the in-process
// store with lexical-v1.
func BenchmarkCacheLookup(b *testing.B) {
	clock := routingtest.NewClock(t0)
	c, err := routing.NewCache(routing.NewMemoryCacheStore(0, 0, clock.Now), lexical(b), routing.CacheConfig{Now: clock.Now})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	para := "Refactor the request handler so that validation errors are returned as structured JSON with the field name. "
	for i := range 32 {
		q := ask(fmt.Sprintf("%s variant %c", para, 'a'+i))
		c.Store(ctx, routing.StoreInput{Scope: aliceScope, Request: q, Status: 200, Response: answer("ok")})
	}
	q := ask(strings.Repeat(para, 1024/len(para)+1)[:1024])
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := c.Lookup(ctx, routing.LookupInput{Scope: aliceScope, Request: q}); err != nil {
			b.Fatal(err)
		}
	}
}

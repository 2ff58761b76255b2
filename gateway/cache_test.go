package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// countingExec is answerExec counting its upstream calls.
type countingExec struct {
	answerExec
	calls atomic.Int32
}

func (c *countingExec) Run(ctx context.Context, m dispatch.Meta, p dispatch.Plan, op *dispatch.Operation, out dispatch.StreamWriter) (*dispatch.Result, error) {
	c.calls.Add(1)
	return c.answerExec.Run(ctx, m, p, op, out)
}

// storedSignal is the in-memory cache store telling each completed Set.
type storedSignal struct {
	*routing.MemoryCacheStore
	stored chan struct{}
}

func (s storedSignal) Set(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	err := s.MemoryCacheStore.Set(ctx, key, v, ttl)
	s.stored <- struct{}{}
	return err
}

// settingsSource is a RouterSource whose settings an admin changes; a
// change is seen at once, as after the API invalidates the settings cache.
type settingsSource struct {
	mu sync.Mutex
	st routing.OrgSettings
}

func (s *settingsSource) For(context.Context, string) (Router, routing.OrgSettings, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return nil, s.st, fmt.Errorf("%w: %w", routing.ErrUnavailable, routing.ErrNoBundle)
}

func (s *settingsSource) set(st routing.OrgSettings) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st = st
}

// TestCacheAfterPolicy: the cache is consulted after the organisation's
// policy and keyed by its decision, so a model denied after its answer was
// cached is refused (not served from the cache), an alias moved to another
// model misses, and an unchanged policy still hits.
func TestCacheAfterPolicy(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name          string
		model         string
		before, after routing.OrgSettings
		wantErr       error
		wantRoute     string
		wantModel     string
		wantCalls     int32 // upstream calls over both turns
	}{
		{name: "unchanged policy hits", model: "gpt-5-mini",
			before: routing.OrgSettings{UpdatedAt: t0}, after: routing.OrgSettings{UpdatedAt: t0},
			wantRoute: RouteCache, wantModel: "gpt-5-mini", wantCalls: 1},
		{name: "model denied after caching is refused", model: "gpt-5-mini",
			before: routing.OrgSettings{UpdatedAt: t0}, after: routing.OrgSettings{Deny: []string{"gpt-5-mini"}, UpdatedAt: t0.Add(time.Second)},
			wantErr: ErrModelNotAllowed, wantCalls: 1},
		{name: "model outside a new allow list is refused", model: "gpt-5-mini",
			before: routing.OrgSettings{UpdatedAt: t0}, after: routing.OrgSettings{Allow: []string{"gpt-5-nano"}, UpdatedAt: t0.Add(time.Second)},
			wantErr: ErrModelNotAllowed, wantCalls: 1},
		{name: "alias moved to another model misses", model: "fast",
			before:    routing.OrgSettings{Aliases: map[string]string{"fast": "gpt-5-mini"}, UpdatedAt: t0},
			after:     routing.OrgSettings{Aliases: map[string]string{"fast": "gpt-5-nano"}, UpdatedAt: t0.Add(time.Second)},
			wantRoute: RouteExplicit, wantModel: "gpt-5-nano", wantCalls: 2},
		{name: "any settings change starts afresh", model: "gpt-5-mini",
			before: routing.OrgSettings{UpdatedAt: t0}, after: routing.OrgSettings{UpdatedAt: t0.Add(time.Second)},
			wantRoute: RouteExplicit, wantModel: "gpt-5-mini", wantCalls: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store := storedSignal{routing.NewMemoryCacheStore(0, 0, nil), make(chan struct{}, 4)}
			cache, err := routing.NewCache(store, nil, routing.CacheConfig{})
			if err != nil {
				t.Fatal(err)
			}
			src := &settingsSource{st: tt.before}
			exec := &countingExec{}
			s := testService(t, Config{}, Deps{Executor: exec, Routers: src}, WithCache(cache))
			turn := func() *Turn {
				return &Turn{RequestID: "req_1", Received: time.Now(), Format: llm.FormatChat, Header: http.Header{},
					Body:   []byte(`{"model":"` + tt.model + `","messages":[{"role":"user","content":"what is a loom?"}]}`),
					Caller: Caller{OrgID: "org", KeyID: "key", Scopes: []string{"inference"}}}
			}
			if err := s.Serve(context.Background(), turn(), &captureOutput{}); err != nil {
				t.Fatal(err)
			}
			select {
			case <-store.stored:
			case <-time.After(5 * time.Second):
				t.Fatal("the first answer was never cached")
			}
			src.set(tt.after)
			out := &captureOutput{}
			err = s.Serve(context.Background(), turn(), out)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("second turn: err %v, want %v", err, tt.wantErr)
			}
			if got := exec.calls.Load(); got != tt.wantCalls {
				t.Errorf("upstream calls %d, want %d", got, tt.wantCalls)
			}
			if err != nil {
				if out.commits != 0 || out.buf.Len() != 0 {
					t.Errorf("a refused turn wrote %d commits and %q", out.commits, out.buf.String())
				}
				return
			}
			if out.served.Route != tt.wantRoute || out.served.Model != tt.wantModel {
				t.Errorf("served route %s model %s, want %s %s", out.served.Route, out.served.Model, tt.wantRoute, tt.wantModel)
			}
		})
	}
}

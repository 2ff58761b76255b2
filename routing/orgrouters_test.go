package routing_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/offline"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

var trainedAt = time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)

// orgCfg trains organisation bundles over the three models of
// routingtest.OrgEvalJSONL.
func orgCfg() offline.OrgTrainConfig {
	return offline.OrgTrainConfig{Known: knownModels("cheap", "mid", "strong"), Now: func() time.Time { return trainedAt }}
}

// orgStore is an in-memory OrgSettingsStore and OrgBundleStore that counts
// its reads and can be made to fail.
type orgStore struct {
	mu          sync.Mutex
	settings    map[string]routing.OrgSettings
	bundles     map[string]map[string]*routing.Bundle // org -> id -> bundle
	settingsN   int
	bundleN     int
	failSetting error
	// read and release, when set, make GetSettings announce on read that it
	// has read its value and wait for release before returning it.
	read, release chan struct{}
}

func newOrgStore() *orgStore {
	return &orgStore{settings: map[string]routing.OrgSettings{}, bundles: map[string]map[string]*routing.Bundle{}}
}

func (s *orgStore) GetSettings(_ context.Context, org string) (routing.OrgSettings, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settingsN++
	if s.failSetting != nil {
		return routing.OrgSettings{}, s.failSetting
	}
	v := s.settings[org]
	if s.read != nil {
		read, release := s.read, s.release
		s.read, s.release = nil, nil
		s.mu.Unlock()
		read <- struct{}{}
		<-release
		s.mu.Lock()
	}
	return v, nil
}

func (s *orgStore) PutSettings(_ context.Context, org string, v routing.OrgSettings) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settings[org] = v
	return nil
}

func (s *orgStore) PutBundle(_ context.Context, org string, b *routing.Bundle) (routing.BundleInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bundles[org] == nil {
		s.bundles[org] = map[string]*routing.Bundle{}
	}
	s.bundles[org][b.ID] = b
	return routing.InfoOf(org, b, trainedAt), nil
}

func (s *orgStore) GetBundle(_ context.Context, org, id string) (*routing.Bundle, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bundleN++
	b, ok := s.bundles[org][id]
	if !ok {
		return nil, routing.ErrBundleNotFound
	}
	return b, nil
}

func (s *orgStore) ListBundles(context.Context, string) ([]routing.BundleInfo, error) {
	return nil, nil
}

func (s *orgStore) reads() (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settingsN, s.bundleN
}

type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestOrgRoutersFor(t *testing.T) {
	ctx := context.Background()
	fallback, err := routing.DefaultRouter(routing.Config{})
	if err != nil {
		t.Fatal(err)
	}
	store := newOrgStore()
	b, err := offline.TrainOrgBundle(ctx, "org_a", bytes.NewReader(routingtest.OrgEvalJSONL(120)), orgCfg())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.PutBundle(ctx, "org_a", b); err != nil {
		t.Fatal(err)
	}
	clock := &testClock{t: trainedAt}
	o := routing.NewOrgRouters(store, store, fallback, routing.Config{}).WithTTL(5*time.Second, clock.Now)

	// No settings: zero settings and the default router.
	r, s, err := o.For(ctx, "org_a")
	if err != nil || r != fallback || s.BundleID != "" || s.Alpha != nil {
		t.Fatalf("no settings: %v %v %+v", r == fallback, err, s)
	}
	// A change is seen only after the TTL; reads are cached until then.
	store.PutSettings(ctx, "org_a", routing.OrgSettings{Alpha: ptr(0.2), BundleID: b.ID, Deny: []string{"mid"}})
	clock.Advance(4 * time.Second)
	if r, _, _ := o.For(ctx, "org_a"); r != fallback {
		t.Fatal("settings re-read before the TTL")
	}
	if n, _ := store.reads(); n != 1 {
		t.Fatalf("%d settings reads within the TTL, want 1", n)
	}
	clock.Advance(2 * time.Second)
	r, s, err = o.For(ctx, "org_a")
	if err != nil || r == fallback || r.Bundle().ID != b.ID || *s.Alpha != 0.2 || s.Deny[0] != "mid" {
		t.Fatalf("after TTL: %v, bundle %v, %+v", err, r, s)
	}
	d, err := r.Decide(ctx, routing.Query{Text: "fix the segfault", Alpha: 1, Eligible: []string{"cheap", "strong"}})
	if err != nil || d.BundleID != b.ID {
		t.Fatalf("decide: %v %+v", err, d)
	}
	// The router over a bundle is built once, even after settings expire.
	clock.Advance(time.Minute)
	r2, _, err := o.For(ctx, "org_a")
	if err != nil || r2 != r {
		t.Fatalf("bundle router rebuilt: %v", err)
	}
	if sn, bn := store.reads(); sn != 3 || bn != 1 {
		t.Fatalf("reads settings %d bundles %d, want 3 and 1", sn, bn)
	}
	// Invalidate makes this replica re-read at once.
	store.PutSettings(ctx, "org_a", routing.OrgSettings{})
	o.Invalidate("org_a")
	if r, _, _ := o.For(ctx, "org_a"); r != fallback {
		t.Fatal("Invalidate did not drop the cached settings")
	}
}

// TestOrgRoutersInvalidateDuringRead: a settings read that started before a
// change and its Invalidate returns the old value to its caller but must not
// be cached, or this replica would serve the old settings for a whole TTL.
func TestOrgRoutersInvalidateDuringRead(t *testing.T) {
	ctx := context.Background()
	fallback, err := routing.DefaultRouter(routing.Config{})
	if err != nil {
		t.Fatal(err)
	}
	store := newOrgStore()
	store.settings["org_a"] = routing.OrgSettings{Alpha: ptr(0.1)}
	read, release := make(chan struct{}), make(chan struct{})
	store.read, store.release = read, release
	clock := &testClock{t: trainedAt}
	o := routing.NewOrgRouters(store, store, fallback, routing.Config{}).WithTTL(time.Minute, clock.Now)

	type result struct {
		s   routing.OrgSettings
		err error
	}
	done := make(chan result)
	go func() {
		_, s, err := o.For(ctx, "org_a")
		done <- result{s, err}
	}()
	<-read // the loader holds alpha 0.1
	if err := store.PutSettings(ctx, "org_a", routing.OrgSettings{Alpha: ptr(0.9)}); err != nil {
		t.Fatal(err)
	}
	o.Invalidate("org_a")
	close(release)
	if r := <-done; r.err != nil || *r.s.Alpha != 0.1 {
		t.Fatalf("overlapping read: %+v, %v; want the value it read (0.1)", r.s, r.err)
	}
	_, s, err := o.For(ctx, "org_a")
	if err != nil || *s.Alpha != 0.9 {
		t.Fatalf("after Invalidate: alpha %v, %v; want 0.9 (the overlapping read was cached)", *s.Alpha, err)
	}
	if n, _ := store.reads(); n != 2 {
		t.Fatalf("%d settings reads, want 2", n)
	}
}

func TestOrgRoutersFailClosed(t *testing.T) {
	ctx := context.Background()
	fallback, err := routing.DefaultRouter(routing.Config{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := offline.TrainOrgBundle(ctx, "org_b", bytes.NewReader(routingtest.OrgEvalJSONL(60)), orgCfg())
	if err != nil {
		t.Fatal(err)
	}
	broken := *b
	broken.Embedder.Lexical = nil // a lexical bundle without its embedder
	storeErr := errors.New("db down")
	for _, tc := range []struct {
		name     string
		setup    func(*orgStore)
		bundles  bool
		fallback *routing.Router
		is       error
	}{
		{"settings store error", func(s *orgStore) { s.failSetting = storeErr }, true, fallback, storeErr},
		{"bundle of another org", func(s *orgStore) {
			s.bundles["org_b"] = map[string]*routing.Bundle{b.ID: b}
			s.settings["org_a"] = routing.OrgSettings{BundleID: b.ID}
		}, true, fallback, routing.ErrBundleNotFound},
		{"bundle without embedder", func(s *orgStore) {
			s.bundles["org_a"] = map[string]*routing.Bundle{b.ID: &broken}
			s.settings["org_a"] = routing.OrgSettings{BundleID: b.ID}
		}, true, fallback, routing.ErrEmbedderMismatch},
		{"no bundle store", func(s *orgStore) { s.settings["org_a"] = routing.OrgSettings{BundleID: b.ID} }, false, fallback, routing.ErrNoBundle},
		{"no fallback", func(*orgStore) {}, true, nil, routing.ErrNoBundle},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newOrgStore()
			tc.setup(s)
			var bs routing.OrgBundleStore
			if tc.bundles {
				bs = s
			}
			r, _, err := routing.NewOrgRouters(s, bs, tc.fallback, routing.Config{}).For(ctx, "org_a")
			if r != nil || !errors.Is(err, routing.ErrUnavailable) || !errors.Is(err, tc.is) {
				t.Fatalf("For = %v, %v; want nil and ErrUnavailable wrapping %v", r, err, tc.is)
			}
		})
	}
}

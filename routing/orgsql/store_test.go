package orgsql_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/offline"
	"github.com/heddle-gw/heddle/routing/orgsql"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func ptr(f float64) *float64 { return &f }

func TestSettingsRoundTrip(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		s := orgsql.New(d.DB, func() time.Time { return t0 })
		if got, err := s.GetSettings(ctx, "org_a"); err != nil || !reflect.DeepEqual(got, routing.OrgSettings{}) {
			t.Fatalf("no row: %+v, %v; want the zero value", got, err)
		}
		for _, tc := range []struct {
			name string
			put  routing.OrgSettings
			want routing.OrgSettings
		}{
			{"full", routing.OrgSettings{Alpha: ptr(0.35), Allow: []string{"a", "b"}, Deny: []string{"c"}, CacheBypass: true, BundleID: "org-1",
				Aliases: map[string]string{"claude-opus-5-5": "a", "x": "auto"}},
				routing.OrgSettings{Alpha: ptr(0.35), Allow: []string{"a", "b"}, Deny: []string{"c"}, CacheBypass: true, BundleID: "org-1",
					Aliases: map[string]string{"claude-opus-5-5": "a", "x": "auto"}, UpdatedAt: t0}},
			{"replaced, alpha and aliases cleared", routing.OrgSettings{Deny: []string{"b"}, UpdatedAt: t0.Add(time.Hour)},
				routing.OrgSettings{Deny: []string{"b"}, UpdatedAt: t0.Add(time.Hour)}},
			{"alpha zero is kept", routing.OrgSettings{Alpha: ptr(0)},
				routing.OrgSettings{Alpha: ptr(0), UpdatedAt: t0}},
		} {
			if err := s.PutSettings(ctx, "org_a", tc.put); err != nil {
				t.Fatalf("%s: put: %v", tc.name, err)
			}
			got, err := s.GetSettings(ctx, "org_a")
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("%s: got %+v (alpha %v), %v; want %+v", tc.name, got, deref(got.Alpha), err, tc.want)
			}
		}
		if got, _ := s.GetSettings(ctx, "org_b"); !reflect.DeepEqual(got, routing.OrgSettings{}) {
			t.Fatalf("org_b sees %+v", got)
		}
		if err := s.PutSettings(ctx, "", routing.OrgSettings{}); err == nil {
			t.Fatal("empty org id accepted")
		}
	})
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// trained returns a small bundle trained for org.
func trained(t *testing.T, org string, n int) *routing.Bundle {
	t.Helper()
	var buf bytes.Buffer
	for i := range n {
		line, _ := json.Marshal(map[string]any{
			"prompt": fmt.Sprintf("prompt number %d about topic %d", i, i%5),
			"scores": map[string]float64{"cheap": float64(i % 2), "strong": 1},
			"costs":  map[string]float64{"cheap": 0.001, "strong": 0.01},
		})
		buf.Write(append(line, '\n'))
	}
	b, err := offline.TrainOrgBundle(context.Background(), org, &buf, offline.OrgTrainConfig{
		Known: func(string) bool { return true }, Dim: 64, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBundlesStoredPerOrg(t *testing.T) {
	a1, a2, b1 := trained(t, "org_a", 60), trained(t, "org_a", 80), trained(t, "org_b", 60)
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		clock := t0
		s := orgsql.New(d.DB, func() time.Time { return clock })
		var infos []routing.BundleInfo
		for _, put := range []struct {
			org string
			b   *routing.Bundle
		}{{"org_a", a1}, {"org_a", a2}, {"org_b", b1}} {
			info, err := s.PutBundle(ctx, put.org, put.b)
			if err != nil {
				t.Fatal(err)
			}
			want := routing.BundleInfo{ID: put.b.ID, OrgID: put.org, Revision: put.b.Revision, Models: []string{"cheap", "strong"},
				K: put.b.Training.K, Samples: put.b.Training.Samples, DataHash: put.b.Training.DataHash, CreatedAt: clock}
			if !reflect.DeepEqual(info, want) {
				t.Fatalf("PutBundle = %+v, want %+v", info, want)
			}
			infos = append(infos, info)
			clock = clock.Add(time.Minute)
		}
		list, err := s.ListBundles(ctx, "org_a")
		if err != nil || !reflect.DeepEqual(list, []routing.BundleInfo{infos[1], infos[0]}) {
			t.Fatalf("ListBundles(org_a) = %+v, %v; want newest first %+v", list, err, infos[:2])
		}
		if list, _ := s.ListBundles(ctx, "org_c"); len(list) != 0 {
			t.Fatalf("org_c lists %v", list)
		}
		got, err := s.GetBundle(ctx, "org_a", a2.ID)
		if err != nil {
			t.Fatal(err)
		}
		wantBytes, _ := a2.Bytes()
		gotBytes, _ := got.Bytes()
		if !bytes.Equal(gotBytes, wantBytes) {
			t.Fatal("bundle bytes changed through the store")
		}
		// Isolation: org_b cannot read org_a's bundle, nor org_a org_b's.
		for _, c := range []struct{ org, id string }{{"org_b", a1.ID}, {"org_a", b1.ID}, {"org_a", "nope"}} {
			if b, err := s.GetBundle(ctx, c.org, c.id); b != nil || !errors.Is(err, routing.ErrBundleNotFound) {
				t.Fatalf("GetBundle(%s, %s) = %v, %v; want ErrBundleNotFound", c.org, c.id, b != nil, err)
			}
		}
		// org_b cannot overwrite org_a's bundle id either.
		if _, err := s.PutBundle(ctx, "org_b", a1); !errors.Is(err, orgsql.ErrConflict) {
			t.Fatalf("PutBundle over another org's id: %v, want ErrConflict", err)
		}
		if got, err := s.GetBundle(ctx, "org_a", a1.ID); err != nil || got.Training.DataHash != a1.Training.DataHash {
			t.Fatalf("org_a's bundle changed: %v", err)
		}
		// Re-putting one's own bundle replaces it.
		if _, err := s.PutBundle(ctx, "org_a", a1); err != nil {
			t.Fatalf("re-put: %v", err)
		}
		// A corrupted row fails to load with ErrBundle.
		if err := d.DB.Exec("UPDATE org_bundles SET bundle = ? WHERE id = ?", []byte("{}"), a2.ID).Error; err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetBundle(ctx, "org_a", a2.ID); !errors.Is(err, routing.ErrBundle) {
			t.Fatalf("corrupt bundle: %v, want ErrBundle", err)
		}
		s.PutSettings(ctx, "org_a", routing.OrgSettings{BundleID: a1.ID})
		if n, err := s.DeleteOrg(ctx, "org_a"); err != nil || n != 2 {
			t.Fatalf("DeleteOrg = %d, %v; want 2", n, err)
		}
		if st, _ := s.GetSettings(ctx, "org_a"); st.BundleID != "" {
			t.Fatal("settings survived DeleteOrg")
		}
		if _, err := s.GetBundle(ctx, "org_b", b1.ID); err != nil {
			t.Fatalf("org_b's bundle deleted with org_a: %v", err)
		}
	})
}

// TestOrgRoutersOverStore wires the store into routing.OrgRouters: the org's
// chosen bundle routes, and survives a restart of the store's connection.
func TestOrgRoutersOverStore(t *testing.T) {
	b := trained(t, "org_a", 60)
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		s := orgsql.New(d.DB, nil)
		if _, err := s.PutBundle(ctx, "org_a", b); err != nil {
			t.Fatal(err)
		}
		if err := s.PutSettings(ctx, "org_a", routing.OrgSettings{BundleID: b.ID, Alpha: ptr(0.5)}); err != nil {
			t.Fatal(err)
		}
		again := orgsql.New(d.Reopen(t), nil)
		o := routing.NewOrgRouters(again, again, nil, routing.Config{})
		r, st, err := o.For(ctx, "org_a")
		if err != nil || r.Bundle().ID != b.ID || *st.Alpha != 0.5 {
			t.Fatalf("For = %v, %+v", err, st)
		}
		dec, err := r.Decide(ctx, routing.Query{Text: "prompt number 3 about topic 3", Alpha: 1, Eligible: []string{"cheap", "strong"}})
		if err != nil || dec.Model != "strong" || dec.BundleID != b.ID {
			t.Fatalf("Decide = %+v, %v", dec, err)
		}
		// Another org pointing at org_a's bundle id fails closed.
		again.PutSettings(ctx, "org_b", routing.OrgSettings{BundleID: b.ID})
		if _, _, err := o.For(ctx, "org_b"); !errors.Is(err, routing.ErrUnavailable) || !errors.Is(err, routing.ErrBundleNotFound) {
			t.Fatalf("org_b with org_a's bundle: %v", err)
		}
	})
}

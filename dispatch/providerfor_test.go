package dispatch_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/dispatch/provider/openai"
	"github.com/heddle-gw/heddle/llm"
)

// TestProviderFor: a target whose provider is not in Providers (a tenant's
// own endpoint) reaches its upstream through the adapter ProviderFor finds,
// with the credential resolved under the target's provider name; when
// ProviderFor finds none the target counts as not configured.
func TestProviderFor(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	compat := openai.New(openai.Config{}, nil)
	var asked []dispatch.Target
	creds := dispatchtest.NewCredentials(map[string]dispatch.Credential{
		"acme": {ID: "cred-acme", Secret: "sk-acme-secret"},
	})
	exec := dispatch.NewExecutor(dispatch.Config{FirstByteTimeout: testTimeout, NonStreamTimeout: testTimeout, StreamIdleTimeout: testTimeout}, dispatch.Deps{
		Providers:   map[string]dispatch.Provider{"openai": compat},
		Credentials: creds,
		Codecs:      codecs(),
		ProviderFor: func(tg dispatch.Target) dispatch.Provider {
			asked = append(asked, tg)
			if tg.Format == llm.FormatChat && tg.BaseURL != "" {
				return compat
			}
			return nil
		},
	})
	meta := dispatch.Meta{OrgID: "org-1", RequestID: "req-1", OperationID: "req-1/0"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	tenant := dispatch.Target{Model: "acme-llama", Provider: "acme", Upstream: "llama-up", Format: llm.FormatChat, BaseURL: up.URL + "/v1"}
	res, err := exec.Run(ctx, meta, dispatch.Plan{Targets: []dispatch.Target{tenant}}, chatOp(false), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Served != tenant {
		t.Fatalf("served %+v, want %+v", res.Served, tenant)
	}
	reqs := up.Requests()
	if len(reqs) != 1 || reqs[0].Model != "llama-up" || reqs[0].Header.Get("Authorization") != "Bearer sk-acme-secret" {
		t.Fatalf("upstream got %+v", reqs)
	}
	if len(asked) != 1 || asked[0] != tenant {
		t.Fatalf("ProviderFor asked %+v", asked)
	}

	// A catalog provider in the map never consults ProviderFor; a target
	// ProviderFor does not serve is not configured.
	unknown := dispatch.Target{Model: "x", Provider: "nobody", Upstream: "x", Format: llm.FormatGemini}
	_, err = exec.Run(ctx, meta, dispatch.Plan{Targets: []dispatch.Target{unknown}}, chatOp(false), nil)
	if !errors.Is(err, dispatch.ErrNotConfigured) {
		t.Fatalf("unserved target: %v, want ErrNotConfigured", err)
	}
	if len(asked) != 2 || len(up.Requests()) != 1 {
		t.Fatalf("asked %d times, upstream got %d requests", len(asked), len(up.Requests()))
	}
}

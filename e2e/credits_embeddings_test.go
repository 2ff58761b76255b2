package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// TestHostedEmbeddings: on a hosted plan /v1/embeddings pays like a turn.
// An organisation with credit and no BYOK credential embeds on the
// platform credential and is debited the recorded cost at the plan's
// prices (one debit for the request id, nothing left reserved); an
// organisation on the same plan without credit is refused with 402
// billing.insufficient_credits in OpenAI's shape and nothing reaches the
// upstream.
func TestHostedEmbeddings(t *testing.T) {
	const multiplier = 15000
	const model = "text-embedding-3-small"
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, nil)
	op, planID := operatorSetup(t, in.URL, map[string]string{"HEDDLE_DATA_DIR": in.DataDir}, up.URL+"/v1", multiplier)
	rich := signUp(t, in.URL, "embed-rich@example.com", "", "", "")
	poor := signUp(t, in.URL, "embed-poor@example.com", "", "", "")
	for _, tn := range []*tenant{rich, poor} {
		op.do("PUT", "/api/v1/operator/orgs/"+tn.OrgID+"/plan", map[string]any{"plan_id": planID}, 200, nil)
	}
	op.do("POST", "/api/v1/operator/orgs/"+rich.OrgID+"/credits", map[string]any{"kind": "grant", "amount_micros": 1_000_000, "reason": "trial"}, 201, nil)

	// 500,000 input tokens at $0.02 per million: 10,000 micro-dollars.
	up.Script(model, dispatchtest.Step{InputTokens: 500_000})
	embed := wireCall{"embeddings", "/v1/embeddings", `{"model":"` + model + `","input":["first document","second document"]}`, "Authorization"}
	resp, b := embed.call(t, in.URL, rich.Key)
	if resp.StatusCode != 200 || resp.Header.Get("x-heddle-provider") != "openai" {
		t.Fatalf("embeddings on the platform credential: %d %s %s", resp.StatusCode, resp.Header.Get("x-heddle-error"), b)
	}
	reqID := resp.Header.Get("x-heddle-request-id")
	if r := up.Requests(); len(r) != 1 || r[0].Header.Get("Authorization") != "Bearer "+platformSecret {
		t.Fatalf("the upstream got %d requests, want 1 on the platform credential", len(r))
	}
	want := -priced(10_000, multiplier)
	testwait.Until(t, 10*time.Second, "the embeddings debit", func() bool {
		for _, e := range wholeLedger(t, rich) {
			if e.Kind == "debit" && e.RequestID == reqID {
				return true
			}
		}
		return false
	})
	var debits []int64
	for _, e := range wholeLedger(t, rich) {
		if e.Kind == "debit" {
			debits = append(debits, e.AmountMicros)
		}
	}
	var st billingState
	rich.api.do("GET", "/api/v1/billing", nil, 200, &st)
	if len(debits) != 1 || debits[0] != want || st.ReservedMicros != 0 || st.BalanceMicros != 1_000_000+want {
		t.Errorf("debits %v, billing %+v; want one debit of %d and nothing reserved", debits, st, want)
	}

	resp, b = embed.call(t, in.URL, poor.Key)
	if resp.StatusCode != 402 || resp.Header.Get("x-heddle-error") != "billing.insufficient_credits" ||
		!strings.Contains(b, `"error"`) || !strings.Contains(b, "prepaid credit") {
		t.Errorf("embeddings without credit: %d %q %s, want 402 billing.insufficient_credits in OpenAI's shape", resp.StatusCode, resp.Header.Get("x-heddle-error"), b)
	}
	if n := len(up.Requests()); n != 1 {
		t.Errorf("a refused embeddings request reached the upstream (%d requests)", n)
	}
}

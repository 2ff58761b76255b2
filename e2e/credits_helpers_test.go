package e2e

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// platformSecret is the platform credential's secret; byokSecret the
// organisation's own, added later.
const (
	platformSecret = "sk-platform-PLAINTEXT-7d1e0c55aa904b3c"
	byokSecret     = "sk-byok-PLAINTEXT-21f4e8b0c6d94a11"
)

// wireCall is one data-plane request in one of the four wire formats.
type wireCall struct {
	name, path, body string
	header           string // the header carrying the key
}

// wireCalls are gpt-5-mini requests in the four formats, whole and
// streamed; i makes each prompt unique (the response cache stays out).
func wireCalls(i int) []wireCall {
	n := itoa(i)
	return []wireCall{
		{"chat", "/v1/chat/completions", `{"model":"gpt-5-mini","max_tokens":64,"messages":[{"role":"user","content":"credit chat ` + n + `"}]}`, "Authorization"},
		{"chat stream", "/v1/chat/completions", `{"model":"gpt-5-mini","max_tokens":64,"stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"credit chat stream ` + n + `"}]}`, "Authorization"},
		{"messages", "/v1/messages", `{"model":"gpt-5-mini","max_tokens":64,"messages":[{"role":"user","content":"credit messages ` + n + `"}]}`, "x-api-key"},
		{"messages stream", "/v1/messages", `{"model":"gpt-5-mini","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"credit messages stream ` + n + `"}]}`, "x-api-key"},
		{"responses", "/v1/responses", `{"model":"gpt-5-mini","max_output_tokens":64,"input":"credit responses ` + n + `"}`, "Authorization"},
		{"responses stream", "/v1/responses", `{"model":"gpt-5-mini","max_output_tokens":64,"stream":true,"input":"credit responses stream ` + n + `"}`, "Authorization"},
		{"gemini", "/v1beta/models/gpt-5-mini:generateContent", `{"generationConfig":{"maxOutputTokens":64},"contents":[{"role":"user","parts":[{"text":"credit gemini ` + n + `"}]}]}`, "x-goog-api-key"},
		{"gemini stream", "/v1beta/models/gpt-5-mini:streamGenerateContent?alt=sse", `{"generationConfig":{"maxOutputTokens":64},"contents":[{"role":"user","parts":[{"text":"credit gemini stream ` + n + `"}]}]}`, "x-goog-api-key"},
	}
}

// call sends c with key and returns the response and its whole body.
func (c wireCall) call(t *testing.T, base, key string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+c.path, strings.NewReader(c.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("anthropic-version", "2023-06-01")
	if c.header == "Authorization" {
		req.Header.Set("Authorization", "Bearer "+key)
	} else {
		req.Header.Set(c.header, key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

// ledgerEntry is one entry of GET /api/v1/billing/ledger.
type ledgerEntry struct {
	ID           string `json:"id"`
	Kind         string `json:"kind"`
	AmountMicros int64  `json:"amount_micros"`
	RequestID    string `json:"request_id"`
	Reference    string `json:"reference"`
}

// billingState is GET /api/v1/billing's money part.
type billingState struct {
	BalanceMicros  int64 `json:"balance_micros"`
	ReservedMicros int64 `json:"reserved_micros"`
	Reservations   []struct {
		ID string `json:"id"`
	} `json:"reservations"`
	Plan *struct {
		Name         string `json:"name"`
		MultiplierBP int64  `json:"multiplier_bp"`
	} `json:"plan"`
	Prices []struct {
		Model string  `json:"model"`
		Input float64 `json:"input"`
	} `json:"prices"`
	Usage []struct {
		Model    string `json:"model"`
		KeyID    string `json:"key_id"`
		Requests int    `json:"requests"`
		Micros   int64  `json:"micros"`
	} `json:"usage_this_month"`
}

// wholeLedger pages through t's ledger (newest first).
func wholeLedger(t *testing.T, tn *tenant) []ledgerEntry {
	t.Helper()
	var all []ledgerEntry
	before := ""
	for range 100 {
		var page struct {
			Entries []ledgerEntry `json:"entries"`
			Next    string        `json:"next"`
		}
		tn.api.do("GET", "/api/v1/billing/ledger?limit=20&before="+before, nil, 200, &page)
		all = append(all, page.Entries...)
		if page.Next == "" {
			return all
		}
		before = page.Next
	}
	t.Fatal("ledger paging did not end")
	return nil
}

// operatorSetup signs up operator@example.com, makes it an operator with
// `heddle operator add` (cliEnv reaches the instance's database), creates
// a plan of multiplierBP on openai and a platform credential pointing at
// upstreamURL, and returns the operator's client and the plan id.
func operatorSetup(t *testing.T, base string, cliEnv map[string]string, upstreamURL string, multiplierBP int64) (*apiClient, string) {
	t.Helper()
	op := signUp(t, base, "operator@example.com", "", "", "").api
	// HEDDLE_OPERATOR_EMAIL names this address, but the user signed up after
	// the start: a later sign-up is never granted the role.
	op.do("GET", "/api/v1/operator/orgs", nil, 403, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if out, err := runCLI(ctx, t, cliEnv, "operator", "add", "operator@example.com"); err != nil {
		t.Fatalf("operator add: %v %s", err, out)
	}
	var plan struct {
		ID string `json:"id"`
	}
	op.do("POST", "/api/v1/operator/plans", map[string]any{"name": "starter", "providers": []string{"openai"}, "multiplier_bp": multiplierBP}, 201, &plan)
	op.do("POST", "/api/v1/operator/credentials", map[string]any{"provider": "openai", "label": "platform", "secret": platformSecret,
		"base_url": upstreamURL}, 201, nil)
	return op, plan.ID
}

// priced is cost at a plan's multiplier, rounded up like credits.Plan.Price.
func priced(cost, bp int64) int64 {
	if cost <= 0 {
		return 0
	}
	return (cost*bp + 9999) / 10000
}

// saveStatement downloads tn's statement of month as PDF and CSV into dir
// (to render and look at) and checks their types.
func saveStatement(t *testing.T, tn *tenant, month, dir string) {
	t.Helper()
	for _, f := range []string{"pdf", "csv"} {
		req, _ := http.NewRequest("GET", tn.api.base+"/api/v1/billing/statements/"+month+"?format="+f, nil)
		req.Header.Set("Authorization", "Bearer "+tn.api.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || (f == "pdf" && !strings.HasPrefix(string(raw), "%PDF-")) {
			t.Fatalf("statement %s: %d %.40q", f, resp.StatusCode, raw)
		}
		if err := os.WriteFile(filepath.Join(dir, "statement."+f), raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// hookSecret signs low-balance alerts in the tests.
const hookSecret = "whsec-e2e-2b7c91d4"

// lowBalance is one alert the webhook received (its signature checked).
type lowBalance struct {
	Type          string `json:"type"`
	OrgID         string `json:"org_id"`
	BalanceMicros int64  `json:"balance_micros"`
}

// alertHook is a webhook receiver that keeps alerts whose HMAC-SHA256
// signature verifies and fails the test on any other.
type alertHook struct {
	url    string
	mu     sync.Mutex
	alerts []lowBalance
}

func newAlertHook(t *testing.T) *alertHook {
	h := &alertHook{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m := hmac.New(sha256.New, []byte(hookSecret))
		m.Write(body)
		if r.Header.Get("X-Heddle-Signature") != "sha256="+hex.EncodeToString(m.Sum(nil)) {
			t.Errorf("webhook signature %q does not verify", r.Header.Get("X-Heddle-Signature"))
			w.WriteHeader(400)
			return
		}
		var a lowBalance
		if err := json.Unmarshal(body, &a); err != nil {
			t.Errorf("webhook body %s: %v", body, err)
		}
		h.mu.Lock()
		h.alerts = append(h.alerts, a)
		h.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	h.url = srv.URL + "/hook"
	return h
}

func (h *alertHook) got() []lowBalance {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]lowBalance(nil), h.alerts...)
}

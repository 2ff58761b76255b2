package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// TestConsoleDay2: the console an admin reads on day 2, against the built
// binary and headless Chromium. A circuit opens on one binding; a routed
// request then shows it skipped (circuit_open) ahead of the remembered
// binding, which fails, and the runner-up serves: the request page draws that waterfall,
// names the key and baseline model and lists the candidates; the provider
// health page shows the open circuit; the dashboard takes a 30-day range
// and explains savings by source; a report groups by the x-heddle-tags
// header's tags. Screenshots go to HEDDLE_E2E_SHOTS (a directory), else to
// the test's temporary directory.
func TestConsoleDay2(t *testing.T) {
	t.Run("embedded", func(t *testing.T) { testConsoleDay2(t, nil, "") })
	t.Run("postgres+clickhouse", func(t *testing.T) {
		chURL, _ := freshClickHouse(t)
		testConsoleDay2(t, map[string]string{"HEDDLE_DATABASE_URL": freshPostgres(t), "HEDDLE_CLICKHOUSE_URL": chURL}, "clickhouse-")
	})
}

// testConsoleDay2 runs the journey on the stores env names; screenshot
// file names start with shotPrefix.
func testConsoleDay2(t *testing.T, env map[string]string, shotPrefix string) {
	primary := dispatchtest.NewUpstream(t)   // openai
	secondary := dispatchtest.NewUpstream(t) // openrouter
	in := startHeddle(t, env)
	email := "day2@example.com"
	a := signUp(t, in.URL, email, "openai", fakeSecret, primary.URL+"/v1")
	a.api.do("POST", "/api/v1/credentials", map[string]any{
		"provider": "openrouter", "label": "backup", "secret": "sk-or-backup-000000", "base_url": secondary.URL + "/v1",
	}, 201, nil)
	// Two eligible models, each bound to openai then openrouter: a routed
	// plan is [X/openai, X/openrouter, Y/openai, Y/openrouter].
	a.api.do("PUT", "/api/v1/routing", map[string]any{"allow": []string{"gpt-5-mini", "gpt-5-nano"}}, 200, nil)
	auto := `{"model":"auto","messages":[{"role":"user","content":"summarise the release notes"}]}`
	var route struct {
		Targets []struct{ Model, Provider, Upstream string } `json:"targets"`
	}
	routeReq, _ := http.NewRequest("POST", in.URL+"/v1/route", strings.NewReader(auto))
	routeReq.Header.Set("Authorization", "Bearer "+a.Key)
	resp, err := http.DefaultClient.Do(routeReq)
	if err != nil {
		t.Fatal(err)
	}
	_ = json.NewDecoder(resp.Body).Decode(&route)
	resp.Body.Close()
	if len(route.Targets) != 4 || route.Targets[0].Provider != "openai" || route.Targets[1].Provider != "openrouter" {
		t.Fatalf("routed plan %+v, want two models on openai then openrouter", route.Targets)
	}
	x, y := route.Targets[0].Model, route.Targets[2].Model

	send := func(body, tags string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", in.URL+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+a.Key)
		req.Header.Set("Cache-Control", "no-cache")
		req.Header.Set("x-heddle-tags", tags)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	// Five failures in a row open X/openai's circuit (the default breaker);
	// openrouter fails three times, never five in a row, so it stays closed.
	// e1, e2: both fail; e3: openrouter serves (and is remembered); e4: the
	// remembered openrouter fails first, then openai; e5: openai fails (its
	// circuit opens), openrouter serves.
	explicit := `{"model":"` + x + `","messages":[{"role":"user","content":"warm up"}]}`
	for i, orFails := range []bool{true, true, false, true, false} {
		primary.Script(x, dispatchtest.Status(503))
		if orFails {
			secondary.Script("openai/"+x, dispatchtest.Status(503))
		}
		want := 200
		if orFails {
			want = 502
		}
		if r := send(explicit, "ci"); r.StatusCode != want {
			t.Fatalf("warm-up %d: %d, want %d", i, r.StatusCode, want)
		}
	}
	// The routed request: openrouter (remembered for X) is tried first and
	// fails after 150 ms, X/openai is recorded skipped (circuit open), Y on
	// openai serves after 300 ms.
	secondary.Script("openai/"+x, dispatchtest.Step{Status: 503, Delay: 150 * time.Millisecond})
	primary.Script(y, dispatchtest.Step{Delay: 300 * time.Millisecond, Text: "served by the runner-up"})
	r := send(auto, "team:search, ci")
	reqID := r.Header.Get("x-heddle-request-id")
	if r.StatusCode != 200 || r.Header.Get("x-heddle-model") != y || reqID == "" {
		t.Fatalf("routed request: %d model %q id %q", r.StatusCode, r.Header.Get("x-heddle-model"), reqID)
	}
	if primary.Pending() != 0 || secondary.Pending() != 0 {
		t.Fatalf("unplayed steps: primary %d secondary %d", primary.Pending(), secondary.Pending())
	}
	for range 3 {
		if r := send(`{"model":"gpt-5-nano","messages":[{"role":"user","content":"search query"}]}`, "team:search"); r.StatusCode != 200 {
			t.Fatalf("tagged request: %d", r.StatusCode)
		}
	}

	// Claude Code's metadata.user_id names the account and the session; a
	// request refused by the key's rate limit still records its model.
	ccBody := `{"model":"gpt-5-nano","max_tokens":50,"metadata":{"user_id":"{\"device_id\":\"dev-7\",\"account_uuid\":\"acct-42\",\"session_id\":\"sess-9\"}"},` +
		`"messages":[{"role":"user","content":"hello from claude code"}]}`
	ccReq, _ := http.NewRequest("POST", in.URL+"/v1/messages", strings.NewReader(ccBody))
	ccReq.Header.Set("x-api-key", a.Key)
	ccReq.Header.Set("anthropic-version", "2023-06-01")
	ccResp, err := http.DefaultClient.Do(ccReq)
	if err != nil {
		t.Fatal(err)
	}
	ccResp.Body.Close()
	ccID := ccResp.Header.Get("x-heddle-request-id")
	if ccResp.StatusCode != 200 || ccID == "" {
		t.Fatalf("anthropic request: %d", ccResp.StatusCode)
	}
	var limited struct {
		Secret string `json:"secret"`
	}
	a.api.do("POST", "/api/v1/keys", map[string]any{"name": "limited", "scopes": []string{"inference"}, "rpm": 1}, 201, &limited)
	nano := `{"model":"gpt-5-nano","messages":[{"role":"user","content":"once"}]}`
	if r, _ := chat(t, in.URL, limited.Secret, nano); r.StatusCode != 200 {
		t.Fatalf("limited key, first request: %d", r.StatusCode)
	}
	refused, _ := chat(t, in.URL, limited.Secret, nano)
	refusedID := refused.Header.Get("x-heddle-request-id")
	if refused.StatusCode != 429 || refusedID == "" {
		t.Fatalf("limited key, second request: %d id %q, want 429", refused.StatusCode, refusedID)
	}

	shots := os.Getenv("HEDDLE_E2E_SHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	b := newBrowser(t, in.URL)
	shoot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
		if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		path := filepath.Join(shots, shotPrefix+name)
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot %s (%d bytes)", path, len(png))
	}
	b.do("log in",
		chromedp.Navigate(in.URL+"/login"),
		chromedp.WaitVisible(tid("login-form")),
		chromedp.SendKeys(tid("login-email"), email),
		chromedp.SendKeys(tid("login-password"), "correct horse battery staple"),
		chromedp.Click(tid("login-submit")),
		chromedp.WaitVisible(tid("summary")),
	)

	// The explorer lists the requests with their key, provider, format,
	// stream and fallback; the search by id opens the request.
	testwait.Until(t, 20*time.Second, "the routed request listed", func() bool {
		b.do("explorer", chromedp.Navigate(in.URL+"/requests"), chromedp.WaitVisible(tid("requests-table")))
		return b.count(`[data-testid="request-row-`+reqID+`"]`) == 1
	})
	row := `[data-testid="request-row-` + reqID + `"] `
	if got := b.textIn(row + `[data-testid="request-key"]`); !strings.HasPrefix(got, "dev (rk_") {
		t.Errorf("explorer key %q", got)
	}
	if got := b.textIn(row + `[data-testid="request-provider"]`); got != "openai" {
		t.Errorf("explorer provider %q", got)
	}
	if got := b.textIn(row + `[data-testid="request-fallback"]`); got != "yes" {
		t.Errorf("explorer fallback %q", got)
	}
	shoot("requests-explorer.png")
	b.do("search by id", chromedp.SendKeys(tid("search-id"), reqID), chromedp.Click(tid("search-go")),
		chromedp.WaitVisible(tid("timeline-request-id")))
	if got := b.text("timeline-request-id"); got != reqID {
		t.Errorf("search opened %q, want %q", got, reqID)
	}

	// The request page, once its row and attempts are recorded.
	testwait.Until(t, 20*time.Second, "the routed request's row and its three attempts", func() bool {
		b.do("request page", chromedp.Navigate(in.URL+"/requests/"+reqID), chromedp.WaitVisible(tid("timeline-request-id")))
		return b.count(`[data-testid="timeline-request"]`) == 1 && b.count(`[data-testid="waterfall"] g[data-outcome]`) == 3
	})
	outcomes := b.textsOf(`[data-testid="waterfall"] g[data-outcome] title`)
	if len(outcomes) != 3 || !strings.Contains(outcomes[0], x+" · openai") || !strings.Contains(outcomes[0], "skipped circuit_open") ||
		!strings.Contains(outcomes[1], x+" · openrouter") || !strings.Contains(outcomes[1], "failed upstream_5xx 503") ||
		!strings.Contains(outcomes[2], y+" · openai") || !strings.Contains(outcomes[2], "served") {
		t.Errorf("waterfall rows %q, want %s/openai skipped circuit_open, %[2]s/openrouter failed, %s/openai served", outcomes, x, y)
	}
	if got := b.text("timeline-key"); !strings.HasPrefix(got, "dev (rk_") {
		t.Errorf("request page key %q", got)
	}
	if got := b.text("timeline-baseline-model"); got != "claude-sonnet-4-5" {
		t.Errorf("baseline model %q", got)
	}
	if n := b.count(`[data-testid="timeline-candidates"] tbody tr`); n != 2 {
		t.Errorf("%d candidates listed, want 2", n)
	}
	shoot("request-waterfall.png")

	b.do("provider health", chromedp.Navigate(in.URL+"/providers/health"), chromedp.WaitVisible(tid("health-table")))
	if got := b.textIn(`[data-testid="health-openai/` + x + `"] [data-testid="health-circuit"]`); got != "open" {
		t.Errorf("%s/openai circuit %q, want open", x, got)
	}
	if got := b.textIn(`[data-testid="health-openrouter/` + x + `"] [data-testid="health-circuit"]`); got != "closed" {
		t.Errorf("%s/openrouter circuit %q, want closed", x, got)
	}
	shoot("provider-health.png")

	b.do("dashboard 30 days", chromedp.Navigate(in.URL+"/dashboard"), chromedp.WaitVisible(tid("range-30d")),
		chromedp.Click(tid("range-30d")), chromedp.WaitVisible(tid("savings-sources")))
	if got := b.text("dashboard-period"); !strings.HasPrefix(got, "Last 30 days: ") {
		t.Errorf("dashboard period %q", got)
	}
	if n := b.count(`[data-testid="breakdown-day"] tbody tr`); n != 30 {
		t.Errorf("dashboard shows %d days, want 30", n)
	}
	if got := b.text("stat-requests"); got != "12" {
		t.Errorf("dashboard requests %q, want 12", got)
	}
	shoot("dashboard-30d.png")

	b.do("report by tag", chromedp.Navigate(in.URL+"/reports?group=tag"), chromedp.WaitVisible(tid("report-table")))
	for tag, want := range map[string]string{"ci": "6", "team:search": "4"} {
		if got := b.textIn(`[data-testid="report-row-` + tag + `"] td:nth-child(2)`); got != want {
			t.Errorf("tag %s: %s requests, want %s", tag, got, want)
		}
	}
	if got := b.textIn(`[data-testid="report-totals"] td:nth-child(2)`); got != "12" {
		t.Errorf("report total %s requests, want 12 (a request with two tags counted once)", got)
	}
	shoot("report-by-tag.png")
	b.do("claude code request", chromedp.Navigate(in.URL+"/requests/"+ccID), chromedp.WaitVisible(tid("timeline-user")))
	if u, sess := b.text("timeline-user"), b.text("timeline-session"); u != "acct-42" || sess != "sess-9" {
		t.Errorf("Claude Code request: user %q session %q, want acct-42 and sess-9", u, sess)
	}
	b.do("refused request", chromedp.Navigate(in.URL+"/requests/"+refusedID), chromedp.WaitVisible(tid("timeline-requested")))
	if got, st := b.text("timeline-requested"), b.text("timeline-status"); got != "gpt-5-nano" || st != "429" {
		t.Errorf("refused request: requested %q status %q, want gpt-5-nano and 429", got, st)
	}

	// Routing: the effective dial, and "try a prompt" through the router.
	b.do("routing", chromedp.Navigate(in.URL+"/routing"), chromedp.WaitVisible(tid("routing-try")))
	if got := b.text("routing-effective-alpha"); got != "0.6 (the deployment default)" {
		t.Errorf("effective dial %q", got)
	}
	b.do("try a prompt", chromedp.SendKeys(tid("routing-try-prompt"), "summarise the release notes"),
		chromedp.Click(tid("routing-try-submit")), chromedp.WaitVisible(tid("routing-try-answer")))
	if got := b.text("routing-try-chosen"); got != x {
		t.Errorf("try a prompt chose %q, want %q (as /v1/route did)", got, x)
	}
	if n := b.count(`[data-testid="routing-try-targets"] li`); n != 4 {
		t.Errorf("try a prompt shows %d targets, want 4", n)
	}
	shoot("routing-try.png")
	b.do("keys", chromedp.Navigate(in.URL+"/keys"), chromedp.WaitVisible(tid("keys-table")))
	if got := b.textIn(`[data-testid="key-row-` + a.KeyID + `"] [data-testid="key-spend"]`); got == "-" || got == "$0.00" {
		t.Errorf("key spend this month %q, want the requests' cost", got)
	}
	shoot("keys.png")
	if p := b.pageProblems(); len(p) != 0 {
		t.Errorf("console errors in the browser: %v", p)
	}
}

// textsOf returns the text content of every element matching css (hidden
// ones too, e.g. SVG titles).
func (b *browser) textsOf(css string) []string {
	b.t.Helper()
	out, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll(`+jsString(css)+`)).map(e => e.textContent.trim())`))
	if err != nil {
		b.t.Fatalf("texts of %s: %v", css, err)
	}
	return out
}

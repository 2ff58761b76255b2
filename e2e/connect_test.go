package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/llm"
)

// connectClient runs `heddle connect CLIENT --key KEY --url URL --write`
// with HOME=home, so the client run next reads only what it wrote.
func connectClient(t *testing.T, home, client, key, url string, extra ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := append([]string{"connect", client, "--key", key, "--url", url, "--write"}, extra...)
	out, err := runCLI(ctx, t, map[string]string{"HOME": home}, args...)
	if err != nil || !strings.Contains(out, "wrote ") {
		t.Fatalf("heddle %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if strings.Contains(out, key) {
		t.Errorf("connect --write printed the key: %s", out)
	}
	t.Logf("heddle connect %s: %s", client, strings.TrimSpace(out))
}

// TestCodexDefaultModelOverChat runs `codex exec` with the config.toml that
// `heddle connect codex --write` wrote and no model named: Codex asks for its
// default model, which Heddle serves from a fake OpenAI Chat upstream (Codex
// speaks Responses) scripted to call exec_command and then answer.
func TestCodexDefaultModelOverChat(t *testing.T) {
	bin := agentPath(t, codexBin)
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, nil)
	tn := signUp(t, in.URL, "codex-default@example.com", "openai", fakeSecret, up.URL+"/v1")
	const callID = "call_codex_default_1"
	cx := codexHello(t, bin, in, up, tn.Key, codexDefaultModel, callID)
	fail := cx.fail
	path := filepath.Join(cx.home, ".codex", "config.toml")
	config, err := os.ReadFile(path)
	if st, _ := os.Stat(path); err != nil || st == nil || st.Mode().Perm() != 0o600 {
		fail("config.toml: %v, mode %v; want 0600", err, st)
	}
	t.Logf("config.toml:\n%s", config)
	reqs := up.Requests()
	for _, r := range reqs {
		if r.Format != llm.FormatChat || r.Path != "/v1/chat/completions" || r.Model != codexDefaultModel || !r.Stream {
			fail("upstream request %s format %s model %q stream %v", r.Path, r.Format, r.Model, r.Stream)
		}
	}
	if len(reqs) == 2 {
		var body struct {
			Messages []struct {
				Role       string `json:"role"`
				ToolCallID string `json:"tool_call_id"`
				ToolCalls  []struct {
					ID string `json:"id"`
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		decodeBody(t, reqs[1], &body)
		replayed, result := false, false
		for _, m := range body.Messages {
			for _, c := range m.ToolCalls {
				replayed = replayed || (m.Role == "assistant" && c.ID == callID)
			}
			result = result || (m.Role == "tool" && m.ToolCallID == callID)
		}
		if !replayed || !result {
			fail("the second Chat turn: call %s replayed %v, its tool result %v", callID, replayed, result)
		}
	} else {
		fail("the upstream got %d requests, want 2", len(reqs))
	}
	rows, _, _ := orgRequests(t, in, tn.OrgID)
	for _, r := range rows {
		t.Logf("request row: status %d decision %q tokens %d cost %d micros", r.status, r.decision, r.tokens, r.cost)
		// 10 in, 5 out at GPT-6.1 Sol's $2/$10 per million: 70 micros, not an estimate.
		if r.status != 200 || r.cost != 70 || r.decision != "explicit:"+codexDefaultModel {
			fail("request row %+v, want 200 at 70 micros decided explicit:%s", r, codexDefaultModel)
		}
	}
	cx.explainOnFailure()
}

// codexRun is one `codex exec` that was asked to create hello.txt.
type codexRun struct {
	t          *testing.T
	in         *instance
	up         *dispatchtest.Upstream
	run        agentRun
	home, args string // HOME the config was written to; the scripted call's arguments
	ok         bool
}

// fail records a failure; explainOnFailure then prints the run's details.
func (c *codexRun) fail(format string, a ...any) {
	c.t.Helper()
	c.ok = false
	c.t.Errorf(format, a...)
}

func (c *codexRun) explainOnFailure() {
	c.t.Helper()
	if !c.ok {
		c.run.explain(c.t, c.in, c.up)
	}
}

// codexHello writes Codex's config with `heddle connect codex --write`
// (plus extra flags), scripts the upstream to answer model with an
// exec_command call writing hello.txt and then a final text, runs
// `codex exec` with only HOME set, and checks the file, the final text and
// that every scripted step was played.
func codexHello(t *testing.T, bin string, in *instance, up *dispatchtest.Upstream, key, model, callID string, extra ...string) *codexRun {
	t.Helper()
	work, home := t.TempDir(), t.TempDir()
	connectClient(t, home, "codex", key, in.URL, extra...)
	const final = "Created hello.txt."
	args, _ := json.Marshal(map[string]string{"cmd": "printf 'Hello from Codex\\n' > hello.txt", "workdir": work})
	up.Script(model, dispatchtest.Tool(callID, "exec_command", string(args)), dispatchtest.OK(final))
	c := &codexRun{t: t, in: in, up: up, home: home, args: string(args), ok: true}
	c.run = runAgent(t, bin, work, map[string]string{"HOME": home},
		"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
		"Create a file hello.txt containing the line: Hello from Codex")
	if c.run.err != nil {
		c.fail("codex exited with %v", c.run.err)
	}
	if got, err := os.ReadFile(filepath.Join(work, "hello.txt")); err != nil || string(got) != "Hello from Codex\n" {
		c.fail("hello.txt = %q, %v", got, err)
	}
	if !strings.Contains(c.run.stdout, final) {
		c.fail("codex's output lacks the final text %q", final)
	}
	if n := up.Pending(); n != 0 {
		c.fail("%d scripted steps were never played", n)
	}
	return c
}

// TestConnectPrints: `heddle connect` prints each client's configuration for
// the server and key given, and refuses what it cannot do.
func TestConnectPrints(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const key = "rk_0123456789abcdefghijABCDEFGHIJ0123456789"
	home := t.TempDir()
	for client, want := range map[string][]string{
		"claude-code": {"export ANTHROPIC_BASE_URL=https://gw.example.com\n", "export ANTHROPIC_AUTH_TOKEN=" + key + "\n"},
		"codex": {"model_provider = \"heddle\"\n", "[model_providers.heddle]\n", "base_url = \"https://gw.example.com/v1\"\n",
			"wire_api = \"responses\"\n", "experimental_bearer_token = \"" + key + "\"\n"},
		"cursor": {"OpenAI API Key:           " + key + "\n", "Override OpenAI Base URL: https://gw.example.com/v1\n"},
		"sdk": {"export OPENAI_BASE_URL=https://gw.example.com/v1\n", "export ANTHROPIC_BASE_URL=https://gw.example.com\n",
			"export GEMINI_API_KEY=" + key + "\n"},
	} {
		out, err := runCLI(ctx, t, map[string]string{"HOME": home}, "connect", client, "--key", key, "--url", "https://gw.example.com/v1/")
		if err != nil {
			t.Errorf("connect %s: %v\n%s", client, err, out)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("connect %s output lacks %q:\n%s", client, w, out)
			}
		}
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("printing wrote %d entries into HOME", len(entries))
	}
	for _, args := range [][]string{
		{"connect", "cursor", "--key", key, "--write"},
		{"connect", "emacs", "--key", key},
		{"connect", "codex"},
		{"connect", "codex", "--key", "sk-not-ours"},
	} {
		if out, err := runCLI(ctx, t, map[string]string{"HOME": home}, args...); err == nil {
			t.Errorf("heddle %v succeeded: %s", args, out)
		}
	}
}

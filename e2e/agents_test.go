package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/llm"
)

// The npm clients pinned in package.json (`npm ci` in e2e/ installs them).
const (
	claudeBin = "node_modules/@anthropic-ai/claude-code-linux-x64/claude"
	codexBin  = "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
	// agentTimeout bounds one CLI run.
	agentTimeout = 120 * time.Second
)

// agentPath returns the absolute path of an npm client binary, failing the
// test when it is missing.
func agentPath(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(p); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		t.Fatalf("%s is missing or not executable (%v): run `cd e2e && npm ci`", p, err)
	}
	return p
}

// agentRun is the outcome of one CLI run.
type agentRun struct {
	stdout, stderr string
	err            error
}

// runAgent runs bin in dir with exactly env (plus PATH), under agentTimeout.
func runAgent(t *testing.T, bin, dir string, env map[string]string, args ...string) agentRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), agentTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = strings.NewReader("")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return agentRun{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// explain prints everything needed to debug a failed agent run.
func (r agentRun) explain(t *testing.T, in *instance, up *dispatchtest.Upstream) {
	t.Helper()
	t.Logf("exit: %v\n--- stdout:\n%s\n--- stderr:\n%s", r.err, r.stdout, r.stderr)
	for i, req := range up.Requests() {
		body := string(req.Body)
		if len(body) > 2000 {
			body = body[:1000] + " ... " + body[len(body)-1000:]
		}
		t.Logf("--- upstream request %d: %s %s model %q stream %v\n%s", i, req.Path, req.Format, req.Model, req.Stream, body)
	}
	t.Logf("--- heddle logs:\n%s", in.logs.String())
}

// claudeDefaultModel is the model Claude Code 2.1.328 asks for when no
// --model is given: a catalog model since the 2026-12-02 catalog, served with
// no alias.
const claudeDefaultModel = "claude-opus-5-5"

// codexDefaultModel is the model Codex 0.169 asks for when its config names
// none: a catalog model since the 2026-12-02 catalog.
const codexDefaultModel = "gpt-6.1-sol"

// claudeOnChatCatalog writes an override catalog that rebinds every
// Anthropic-family model to the "openai" provider (Chat Completions) with
// upstream id "up-<model id>", so Claude Code's requests reach a Chat
// upstream.
func claudeOnChatCatalog(t *testing.T) string {
	t.Helper()
	def, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	f := catalog.File{Version: "e2e-claude-on-chat"}
	for _, m := range def.Models() {
		if m.Family != "anthropic" {
			continue
		}
		m.Bindings = []catalog.Binding{{Provider: "openai", Upstream: "up-" + m.ID}}
		f.Models = append(f.Models, m)
	}
	if len(f.Models) < 2 {
		t.Fatalf("the default catalog has %d Anthropic models", len(f.Models))
	}
	return writeJSONFile(t, "claude-on-chat.json", f)
}

// TestClaudeCodeOverChatUpstream runs `claude -p` against Heddle, configured
// by `heddle connect claude-code --write` alone (no ANTHROPIC_* variables),
// with Claude Code's default model (no alias configured) and with --model
// claude-sonnet-4-5; its Anthropic Messages requests are served by a fake
// OpenAI Chat upstream scripted to call Claude Code's Write tool and then
// answer with text.
func TestClaudeCodeOverChatUpstream(t *testing.T) {
	bin := agentPath(t, claudeBin)
	in := startHeddle(t, map[string]string{"HEDDLE_CATALOG_FILE": claudeOnChatCatalog(t)})
	tests := []struct {
		name    string
		flags   []string
		aliases map[string]string
		model   string // the catalog model the upstream is asked for
	}{
		{"default_model_no_alias", nil, nil, claudeDefaultModel},
		{"sonnet_4_5", []string{"--model", "claude-sonnet-4-5"}, nil, "claude-sonnet-4-5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			claudeCodeTask(t, bin, in, tc.model, tc.aliases, tc.flags)
		})
	}
}

// claudeCodeTask has Claude Code create hello.txt with one Write call.
func claudeCodeTask(t *testing.T, bin string, in *instance, model string, aliases map[string]string, flags []string) {
	up := dispatchtest.NewUpstream(t)
	tn := signUp(t, in.URL, "claude-code-"+model+"@example.com", "openai", fakeSecret, up.URL+"/v1")
	if aliases != nil {
		tn.api.do("PUT", "/api/v1/routing", map[string]any{"aliases": aliases}, 200, nil)
	}

	work, home := t.TempDir(), t.TempDir()
	target := filepath.Join(work, "hello.txt")
	const content = "Hello from Heddle\n"
	const callID = "call_write_7f3a"
	const final = "Created hello.txt with the greeting."
	args, _ := json.Marshal(map[string]string{"file_path": target, "content": content})
	upstream := "up-" + model
	up.Script(upstream, dispatchtest.Tool(callID, "Write", string(args)), dispatchtest.OK(final))

	connectClient(t, home, "claude-code", tn.Key, in.URL)
	run := runAgent(t, bin, work, map[string]string{
		"HOME":              home,
		"DISABLE_TELEMETRY": "1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"DISABLE_AUTOUPDATER":                      "1",
	}, append([]string{"-p", "Create a file named hello.txt in the current directory containing the line: Hello from Heddle",
		"--allowedTools", "Write", "--output-format", "json"}, flags...)...)
	ok := true
	fail := func(format string, a ...any) {
		t.Helper()
		ok = false
		t.Errorf(format, a...)
	}
	if run.err != nil {
		fail("claude exited with %v", run.err)
	}
	if got, err := os.ReadFile(target); err != nil || string(got) != content {
		fail("hello.txt = %q, %v; want %q", got, err, content)
	}
	var result struct {
		IsError   bool   `json:"is_error"`
		Result    string `json:"result"`
		NumTurns  int    `json:"num_turns"`
		ErrStatus int    `json:"api_error_status"`
		Usage     struct {
			Input  int `json:"input_tokens"`
			Output int `json:"output_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(run.stdout), &result); err != nil {
		fail("claude's JSON output: %v", err)
	}
	t.Logf("claude result: %+v", result)
	if result.IsError || result.ErrStatus != 0 || !strings.Contains(result.Result, final) {
		fail("claude's result is_error %v api_error_status %d result %q, want the final text %q",
			result.IsError, result.ErrStatus, result.Result, final)
	}
	// Two turns of the fake's default usage (10 in, 5 out), summed by Claude Code.
	if result.NumTurns != 2 || result.Usage.Input != 20 || result.Usage.Output != 10 {
		fail("claude counted %d turns, usage %+v; want 2 turns, 20 in, 10 out", result.NumTurns, result.Usage)
	}
	if n := up.Pending(); n != 0 {
		fail("%d scripted steps were never played", n)
	}
	var main []dispatchtest.Request
	t.Logf("upstream models requested: %v", up.Models())
	for _, r := range up.Requests() {
		if r.Format != llm.FormatChat || r.Path != "/v1/chat/completions" {
			fail("upstream request %s has format %s", r.Path, r.Format)
		}
		if r.Model == upstream {
			main = append(main, r)
		}
	}
	if len(main) == 2 {
		checkClaudeCodeChatTurns(t, main, callID, string(args), work, fail)
	} else {
		fail("the upstream got %d requests for %s, want 2", len(main), upstream)
	}
	if !ok {
		run.explain(t, in, up)
	}
}

// checkClaudeCodeChatTurns checks the Chat requests of Claude Code's two
// turns: streamed, with Claude Code's Write tool translated, and the second
// replaying the call and carrying its tool result under the call's id. The
// environment Claude Code describes (its working directory) reaches the
// upstream in the role Claude Code gave it: a system message (Claude Code's
// default model) or a user system-reminder (Sonnet 4.5).
func checkClaudeCodeChatTurns(t *testing.T, reqs []dispatchtest.Request, callID, args, work string, fail func(string, ...any)) {
	t.Helper()
	type toolCall struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	var body struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []toolCall      `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	for i, r := range reqs {
		if !r.Stream {
			fail("Claude Code turn %d was not streamed upstream", i)
		}
		body.Tools = nil
		decodeBody(t, r, &body)
		write := false
		for _, tool := range body.Tools {
			if tool.Function.Name == "Write" && strings.Contains(string(tool.Function.Parameters), `"file_path"`) {
				write = true
			}
		}
		if !write || len(body.Tools) < 5 {
			fail("turn %d: %d tools, Write translated: %v", i, len(body.Tools), write)
		}
	}
	var replayed *toolCall
	result, env := "", false
	for _, m := range body.Messages {
		if (m.Role == "system" || m.Role == "user") && strings.Contains(textOf(m.Content), "Primary working directory: "+work) {
			env = true
		}
		for i := range m.ToolCalls {
			if m.ToolCalls[i].ID == callID {
				replayed = &m.ToolCalls[i]
			}
		}
		if m.Role == "tool" && m.ToolCallID == callID {
			result = textOf(m.Content)
		}
	}
	if !env {
		fail("no system or user message tells the upstream the working directory %s", work)
	}
	if replayed == nil || replayed.Function.Name != "Write" || !sameJSON(replayed.Function.Arguments, args) {
		fail("the second turn does not replay the Write call %s: %+v", callID, replayed)
	}
	t.Logf("Claude Code's tool result for %s: %q", callID, result)
	if !strings.Contains(result, "hello.txt") {
		fail("the second turn's tool result for %s = %q, want Claude Code's report on hello.txt", callID, result)
	}
}

// TestCodexOverAnthropicUpstream runs `codex exec` against Heddle, configured
// by `heddle connect codex --write --model claude-sonnet-4-5`; its
// Responses requests are served by a fake Anthropic upstream scripted to
// call Codex's exec_command tool and then answer with text.
func TestCodexOverAnthropicUpstream(t *testing.T) {
	bin := agentPath(t, codexBin)
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, nil)
	tn := signUp(t, in.URL, "codex@example.com", "anthropic", fakeSecret, up.URL)

	const callID = "toolu_01CodexShell9"
	const model = "claude-sonnet-4-5-20250929"
	cx := codexHello(t, bin, in, up, tn.Key, model, callID, "--model", "claude-sonnet-4-5")
	args, fail := cx.args, cx.fail
	reqs := up.Requests()
	for _, r := range reqs {
		if r.Format != llm.FormatAnthropic || r.Path != "/v1/messages" || r.Model != model || !r.Stream {
			fail("upstream request %s format %s model %q stream %v", r.Path, r.Format, r.Model, r.Stream)
		}
	}
	if len(reqs) == 2 {
		checkCodexAnthropicTurns(t, reqs[1], callID, args, fail)
	} else {
		fail("the upstream got %d requests, want 2", len(reqs))
	}
	cx.explainOnFailure()
}

// checkCodexAnthropicTurns checks Codex's second turn as the Anthropic
// upstream got it: the exec_command tool_use replayed with its id and input,
// and a tool_result for that id.
func checkCodexAnthropicTurns(t *testing.T, r dispatchtest.Request, callID, args string, fail func(string, ...any)) {
	t.Helper()
	type block struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
	}
	var body struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	decodeBody(t, r, &body)
	if !strings.Contains(textOf(body.System), "Codex") {
		fail("the system prompt lost Codex's instructions: %.200s", body.System)
	}
	exec := false
	for _, tool := range body.Tools {
		exec = exec || tool.Name == "exec_command"
	}
	if !exec {
		fail("exec_command is not among the %d tools", len(body.Tools))
	}
	var use, result *block
	for _, m := range body.Messages {
		var blocks []block
		_ = json.Unmarshal(m.Content, &blocks)
		for i := range blocks {
			switch b := &blocks[i]; {
			case b.Type == "tool_use" && b.ID == callID && m.Role == "assistant":
				use = b
			case b.Type == "tool_result" && b.ToolUseID == callID && m.Role == "user":
				result = b
			}
		}
	}
	if use == nil || use.Name != "exec_command" || !sameJSON(string(use.Input), args) {
		fail("the second turn does not replay the exec_command call %s: %+v", callID, use)
	}
	if result == nil {
		fail("the second turn has no tool_result for %s", callID)
		return
	}
	t.Logf("Codex's tool result for %s: %.300s", callID, result.Content)
}

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// binary is the heddle executable under test.
var binary string

func TestMain(m *testing.M) {
	binary = os.Getenv("HEDDLE_E2E_BIN")
	if binary == "" {
		dir, err := os.MkdirTemp("", "heddle-e2e-bin")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		binary = filepath.Join(dir, "heddle")
		cmd := exec.Command("go", "build", "-o", binary, "..")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build heddle:", err)
			os.Exit(1)
		}
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// passedThrough names the variables of the test's own environment that
// every heddle process the harness starts inherits (unless the test sets
// them itself), so the whole suite can run against a non-default setting:
// HEDDLE_UPSTREAM_TRANSPORT=fasthttp soaks the fastupstream transport.
var passedThrough = []string{"HEDDLE_UPSTREAM_TRANSPORT"}

// heddleEnv is the environment of a heddle process: PATH, the passed-through
// variables the test's environment sets, then env.
func heddleEnv(env map[string]string, extra ...string) []string {
	out := append([]string{"PATH=" + os.Getenv("PATH")}, extra...)
	for _, k := range passedThrough {
		if _, set := env[k]; set {
			continue
		}
		if v, ok := os.LookupEnv(k); ok {
			out = append(out, k+"="+v)
		}
	}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// instance is one running heddle process.
type instance struct {
	URL     string
	DataDir string
	cmd     *exec.Cmd
	logs    *syncBuffer
	started time.Duration
}

// syncBuffer collects process output safely.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startHeddle runs the binary with a fresh data dir (unless env sets one) and
// waits for /healthz. Extra env entries override the defaults.
func startHeddle(t testing.TB, env map[string]string, args ...string) *instance {
	t.Helper()
	port := freePort(t)
	in := &instance{URL: fmt.Sprintf("http://127.0.0.1:%d", port), DataDir: t.TempDir(), logs: &syncBuffer{}}
	base := map[string]string{
		"HEDDLE_ADDR":                    fmt.Sprintf("127.0.0.1:%d", port),
		"HEDDLE_DATA_DIR":                in.DataDir,
		"HEDDLE_ALLOW_PRIVATE_UPSTREAMS": "true",
		"HEDDLE_SHUTDOWN_TIMEOUT":        "5s",
		// Every test signs organisations up from 127.0.0.1.
		"HEDDLE_ORGS_PER_HOUR":     "100000",
		"HEDDLE_LOGINS_PER_MINUTE": "100000",
	}
	for k, v := range env {
		base[k] = v
	}
	if d, ok := base["HEDDLE_DATA_DIR"]; ok {
		in.DataDir = d
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = heddleEnv(base, "HOME="+in.DataDir)
	cmd.Stdout, cmd.Stderr = in.logs, in.logs
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start heddle: %v", err)
	}
	in.cmd = cmd
	t.Cleanup(func() { in.stop(t) })
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(in.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				in.started = time.Since(begin)
				return in
			}
		}
		if cmd.ProcessState != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("heddle did not serve /healthz within 30s; logs:\n%s", in.logs.String())
	return nil
}

// stop sends SIGTERM and waits for a graceful exit.
func (in *instance) stop(t testing.TB) {
	if in.cmd == nil || in.cmd.Process == nil || in.cmd.ProcessState != nil {
		return
	}
	_ = in.cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- in.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = in.cmd.Process.Kill()
		<-done
		t.Errorf("heddle did not stop within 15s of SIGINT")
	}
}

// logContains reports whether the process output contains s.
func (in *instance) logContains(s string) bool { return strings.Contains(in.logs.String(), s) }

// run executes the binary as a one-shot CLI command with env.
func runCLI(ctx context.Context, t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = heddleEnv(env)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

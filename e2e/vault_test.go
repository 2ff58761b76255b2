package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// TestVaultRotateWhileServing runs `heddle vault rotate` (twice, the second
// also re-encrypting one organisation's credentials) while requests of
// three organisations flow: none fails, and after a restart every
// credential still decrypts.
func TestVaultRotateWhileServing(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	pg := freshPostgres(t)
	dataDir := t.TempDir()
	keyset := filepath.Join(dataDir, "master-keyset.json")
	env := map[string]string{"HEDDLE_DATABASE_URL": pg, "HEDDLE_DATA_DIR": dataDir}
	in := startHeddle(t, env)
	var tenants []*tenant
	for i := 0; i < 3; i++ {
		tenants = append(tenants, signUp(t, in.URL, fmt.Sprintf("org%d@example.com", i), "openai",
			fmt.Sprintf("sk-rotate-%d-%s", i, strings.Repeat("q", 24)), up.URL+"/v1"))
	}
	body := `{"model":"gpt-5-mini","messages":[{"role":"user","content":"ping"}]}`

	var ok, failed atomic.Int64
	var firstErr atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, tn := range tenants {
		wg.Add(1)
		go func(tn *tenant) {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, b := chat(t, in.URL, tn.Key, body)
				if resp.StatusCode == 200 {
					ok.Add(1)
				} else {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("%d %s", resp.StatusCode, b))
				}
			}
		}(tn)
	}
	// Traffic flows before, between and after the rotations.
	served := func(n int64) {
		t.Helper()
		from := ok.Load()
		testwait.Until(t, time.Minute, fmt.Sprintf("%d more requests served", n), func() bool { return ok.Load()-from >= n || failed.Load() > 0 })
	}
	served(5)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cliEnv := map[string]string{"HEDDLE_DATABASE_URL": pg, "HEDDLE_DATA_DIR": dataDir, "HEDDLE_MASTER_KEYSET_FILE": keyset}
	out, err := runCLI(ctx, t, cliEnv, "vault", "rotate")
	if err != nil {
		t.Fatalf("vault rotate: %v\n%s", err, out)
	}
	t.Logf("first rotation: %s", strings.TrimSpace(lastLine(out)))
	served(5)
	out, err = runCLI(ctx, t, cliEnv, "vault", "rotate", "--reencrypt-org", tenants[1].OrgID)
	if err != nil {
		t.Fatalf("vault rotate --reencrypt-org: %v\n%s", err, out)
	}
	t.Logf("second rotation: %s", strings.TrimSpace(lastLine(out)))
	if !strings.Contains(out, "3 data keysets re-wrapped") || !strings.Contains(out, "1 credentials re-encrypted") {
		t.Errorf("rotation report: %s", out)
	}
	served(5)
	close(stop)
	wg.Wait()
	t.Logf("during rotation: %d requests served, %d failed", ok.Load(), failed.Load())
	if failed.Load() != 0 {
		t.Fatalf("%d requests failed during rotation; first: %v", failed.Load(), firstErr.Load())
	}
	if ok.Load() < 10 {
		t.Fatalf("only %d requests ran during rotation", ok.Load())
	}

	// After a restart (a fresh process, cold caches) every credential decrypts.
	in.stop(t)
	in2 := startHeddle(t, env)
	for i, tn := range tenants {
		before := len(up.Requests())
		resp, b := chat(t, in2.URL, tn.Key, body)
		if resp.StatusCode != 200 {
			t.Fatalf("org %d after restart: %d %s", i, resp.StatusCode, b)
		}
		got := up.Requests()[before].Header.Get("Authorization")
		want := fmt.Sprintf("Bearer sk-rotate-%d-%s", i, strings.Repeat("q", 24))
		if got != want {
			t.Errorf("org %d sent %q upstream, want its own credential", i, got)
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

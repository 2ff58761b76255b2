package e2e

import (
	"context"
	"errors"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSecondProcessOnSpillDirExits: a second `heddle serve` on the spill
// directory of a running one (the same HEDDLE_SPILL_DIR, or the same
// HEDDLE_DATA_DIR and so its default spill) exits 1 at startup with one
// line naming the directory and HEDDLE_SPILL_DIR, and the first keeps
// serving; once the first stopped, the second's configuration starts.
func TestSecondProcessOnSpillDirExits(t *testing.T) {
	for _, shared := range []string{"HEDDLE_SPILL_DIR", "HEDDLE_DATA_DIR"} {
		t.Run(shared, func(t *testing.T) {
			dir := t.TempDir()
			spill := filepath.Join(dir, "spill")
			env := func() map[string]string {
				if shared == "HEDDLE_SPILL_DIR" {
					return map[string]string{"HEDDLE_SPILL_DIR": spill, "HEDDLE_DATA_DIR": t.TempDir()}
				}
				return map[string]string{"HEDDLE_DATA_DIR": dir}
			}
			first := startHeddle(t, env())

			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			second := env()
			second["HEDDLE_ADDR"] = "127.0.0.1:0"
			out, err := runCLI(ctx, t, second, "serve")
			var exit *exec.ExitError
			if ctx.Err() != nil || !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("second serve on %s: %v (context %v), want exit status 1; output:\n%s", spill, err, ctx.Err(), out)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			last := lines[len(lines)-1]
			want := "heddle: analytics: spill directory in use by another Heddle process: " + spill
			if !strings.HasPrefix(last, want) || !strings.Contains(last, "HEDDLE_SPILL_DIR") {
				t.Fatalf("last line of the second serve:\n%s\nwant it to start %q and name HEDDLE_SPILL_DIR; output:\n%s", last, want, out)
			}
			if strings.Contains(out, "heddle serving") {
				t.Errorf("the second process reported serving:\n%s", out)
			}
			resp, err := http.Get(first.URL + "/healthz")
			if err != nil {
				t.Fatalf("the first process after the refused start: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("the first process after the refused start: /healthz %d", resp.StatusCode)
			}

			first.stop(t)
			delete(second, "HEDDLE_ADDR") // startHeddle picks a port to poll
			startHeddle(t, second).stop(t)
		})
	}
}

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// evalFile writes n lines of evaluation data for gpt-5 and gpt-5-nano
// (code questions only gpt-5 answers, small talk both do), then the extra
// lines, to a .jsonl file and returns its path.
func evalFile(t *testing.T, name string, n int, extra ...string) string {
	t.Helper()
	var data bytes.Buffer
	for i := range n {
		prompt, cheap := fmt.Sprintf("how was your weekend, friend %d", i), 1.0
		if i%2 == 0 {
			prompt, cheap = fmt.Sprintf("write a B-tree in Rust with deletion, variant %d", i), 0.0
		}
		line, _ := json.Marshal(map[string]any{"prompt": prompt,
			"scores": map[string]float64{"gpt-5": 1, "gpt-5-nano": cheap},
			"costs":  map[string]float64{"gpt-5": 0.01, "gpt-5-nano": 0.0004}})
		data.Write(append(line, '\n'))
	}
	for _, l := range extra {
		data.WriteString(l + "\n")
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConsoleBundleUpload trains a bundle through the Routing page's file
// input in headless Chromium: a file with a bad line is refused with the
// line named, a good one trains, shows in the bundle select at once, and is
// marked active once saved as the active bundle.
func TestConsoleBundleUpload(t *testing.T) {
	in := startHeddle(t, nil)
	b := newBrowser(t, in.URL)
	b.do("sign up",
		chromedp.Navigate(in.URL+"/signup"),
		chromedp.WaitVisible(tid("signup-form")),
		chromedp.SendKeys(tid("signup-email"), "bundles@example.com"),
		chromedp.SendKeys(tid("signup-password"), "correct horse battery staple"),
		chromedp.SendKeys(tid("signup-org"), "Bundle Org"),
		chromedp.Click(tid("signup-submit")),
		chromedp.WaitVisible(tid("login-notice")),
		chromedp.SendKeys(tid("login-password"), "correct horse battery staple"),
		chromedp.Click(tid("login-submit")),
		chromedp.WaitVisible(tid("summary")),
	)
	b.do("routing page", chromedp.Click(tid("nav-routing")), chromedp.WaitVisible(tid("routing-train-form")), htmxSettled())

	bad := evalFile(t, "bad.jsonl", 60, `{"prompt":"p","scores":{"gpt-9":1},"costs":{"gpt-9":1}}`)
	b.do("upload a file with a bad line",
		chromedp.SetUploadFiles(tid("routing-train-file"), []string{bad}),
		chromedp.Click(tid("routing-train-submit")),
		chromedp.WaitVisible(tid("routing-train-error")),
		htmxSettled(),
	)
	if got := b.text("routing-train-error"); got != "No bundle was trained: line 61: scores.gpt-9: unknown model." {
		t.Errorf("refusal shows %q", got)
	}
	if b.count(`[data-testid="routing-form"]`) != 1 || b.count(`[data-testid^="routing-bundles-row-"]`) != 0 {
		t.Error("after a refused upload the page lost its settings form or lists a bundle")
	}

	good := evalFile(t, "good.jsonl", 120)
	b.do("upload a good file",
		chromedp.SetUploadFiles(tid("routing-train-file"), []string{good}),
		chromedp.Click(tid("routing-train-submit")),
		chromedp.WaitVisible(tid("routing-trained")),
		htmxSettled(),
	)
	msg := b.text("routing-trained")
	id, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="routing-trained"]').dataset.bundleId`))
	if err != nil || !strings.HasPrefix(id, "org-") || !strings.HasPrefix(msg, "Bundle "+id+" trained: 4 clusters, 120 samples, models gpt-5, gpt-5-nano;") {
		t.Fatalf("success message %q", msg)
	}
	if b.count(`[data-testid="routing-train-error"]`) != 0 || b.count(`[data-testid="routing-bundles-row-`+id+`"]`) != 1 {
		t.Errorf("after training: error box or no table row for %s", id)
	}

	b.do("activate it",
		chromedp.SetValue(tid("routing-bundle"), id),
		chromedp.Click(tid("routing-save")),
		chromedp.WaitVisible(tid("routing-saved")),
		chromedp.WaitVisible(tid("routing-bundles-active-"+id)),
	)
	for _, p := range b.pageProblems() {
		// Chromium logs the refused upload's 422 as a failed load; that one is expected.
		if strings.Contains(p, "status of 422") && strings.HasSuffix(p, "/routing/bundles") {
			continue
		}
		t.Errorf("browser console: %s", p)
	}
}

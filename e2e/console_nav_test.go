package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestConsoleNavOneLine: at 1280 px (the browser tests' window) the top
// navigation bar of an operator (the most links) with a long email and
// organisation name stays on one line: every item of the bar shares one
// vertical centre, and the bar is no taller than one line of it. The
// screenshot goes to HEDDLE_E2E_SHOTS, else to a temporary directory.
func TestConsoleNavOneLine(t *testing.T) {
	in := startHeddle(t, nil)
	const email = "platform.operator.longname@example-company.com"
	signUp(t, in.URL, email, "", "", "")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if out, err := runCLI(ctx, t, map[string]string{"HEDDLE_DATA_DIR": in.DataDir}, "operator", "add", email); err != nil {
		t.Fatalf("operator add: %v %s", err, out)
	}
	b := newBrowser(t, in.URL)
	consoleLogin(b, in.URL, email)
	b.do("the operator link is there", chromedp.WaitVisible(tid("nav-operator")))
	type metrics struct {
		Width   float64 `json:"width"`
		Height  float64 `json:"height"`
		Item    float64 `json:"item"`
		Centres int     `json:"centres"`
	}
	m, err := chromedp.Run(b.ctx, chromedp.Evaluate[metrics](`(() => {
		const bar = document.querySelector('header.top');
		const items = Array.from(bar.children).map(e => e.getBoundingClientRect());
		const style = getComputedStyle(bar);
		return {width: window.innerWidth,
			height: bar.getBoundingClientRect().height - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom),
			item: Math.max(...items.map(r => r.height)),
			centres: new Set(items.map(r => Math.round(r.top + r.height / 2))).size};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("HEDDLE_E2E_SHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(shots, "nav-1280.png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("window %v px, bar content %v px high, tallest item %v px, %d item centres; screenshot %s", m.Width, m.Height, m.Item, m.Centres, path)
	if m.Width != 1280 {
		t.Fatalf("window %v px wide, want 1280", m.Width)
	}
	if m.Centres != 1 || m.Height > m.Item+1 {
		t.Errorf("the navigation bar wraps at 1280 px: %d item centres, %v px high for %v px items", m.Centres, m.Height, m.Item)
	}
}

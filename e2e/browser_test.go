package e2e

import (
	"context"
	"iter"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// browser is one headless Chromium tab driven through chromedp, with the
// page's console errors collected (CSP violations, script exceptions).
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string

	mu       sync.Mutex
	problems []string
}

// chromiumPath finds the Debian Chromium (or another Chrome); the test fails
// when there is none: the console's browser journey is part of the suite.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("HEDDLE_E2E_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium found: install it (apt-get install -y chromium) or set HEDDLE_E2E_CHROMIUM")
	return ""
}

// newBrowser starts headless Chromium with a fresh profile and no network
// chatter of its own (the network here is closed).
func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx, base: base}
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("enable log domain: %v", err)
	}
	go collect(b, chromedp.Events(ctx, cdplog.EntryAdded), func(e cdplog.EventEntryAdded) string {
		if e.Entry == nil || e.Entry.Level != cdplog.EntryLevelError {
			return ""
		}
		return "log: " + e.Entry.Text + " " + e.Entry.URL
	})
	go collect(b, chromedp.Events(ctx, runtime.ExceptionThrown), func(e runtime.EventExceptionThrown) string {
		if e.ExceptionDetails == nil {
			return "exception"
		}
		return "exception: " + e.ExceptionDetails.Text
	})
	// Confirm every dialog (hx-confirm on revoke and delete).
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	return b
}

// collect records the described events until the browser closes.
func collect[E any](b *browser, events iter.Seq2[E, error], describe func(E) string) {
	for e, err := range events {
		if err != nil {
			return
		}
		if s := describe(e); s != "" {
			b.mu.Lock()
			b.problems = append(b.problems, s)
			b.mu.Unlock()
		}
	}
}

// pageProblems returns the console errors seen so far.
func (b *browser) pageProblems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}

// tid selects the element with a data-testid.
func tid(id string) chromedp.CSS { return chromedp.CSS(`[data-testid="` + id + `"]`) }

// do runs steps, failing the test with the page's HTML on error.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v\npage:\n%s", what, err, b.html())
	}
}

// text returns the visible text of the element with data-testid id.
func (b *browser) text(id string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(tid(id)))
	if err != nil {
		b.t.Fatalf("text of %s: %v\npage:\n%s", id, err, b.html())
	}
	return strings.TrimSpace(s)
}

// textIn returns the text of the first element matching css.
func (b *browser) textIn(css string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(css)))
	if err != nil {
		b.t.Fatalf("text of %s: %v\npage:\n%s", css, err, b.html())
	}
	return strings.TrimSpace(s)
}

// html is the current document, for failure messages.
func (b *browser) html() string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	if err != nil {
		return "(no page: " + err.Error() + ")"
	}
	return s
}

// count returns how many elements match css right now.
func (b *browser) count(css string) int {
	b.t.Helper()
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+jsString(css)+`).length`))
	if err != nil {
		b.t.Fatalf("count %s: %v", css, err)
	}
	return n
}

func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func (b *browser) location() string {
	b.t.Helper()
	loc, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		b.t.Fatal(err)
	}
	return loc
}

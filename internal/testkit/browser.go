package testkit

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/chromedp"
)

// InstallChromium is what a developer or CI runs when no browser is found.
const InstallChromium = "no Chromium found (looked for chromium, chromium-browser, google-chrome): install it with `apt-get install -y chromium`"

// Chromium starts one headless Chromium for a test and all its subtests, with
// the project's flags and any extra ones; budget bounds the whole test,
// browser start included. A browser test is slow, so -short skips it.
// Without a browser the test is skipped on a developer's machine and fails in
// CI (env CI set), where it must run.
func Chromium(t testing.TB, budget time.Duration, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("a browser test: skipped with -short")
	}
	exe := findChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	t.Cleanup(cancel)
	opts := append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
	}, extra...)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc) // also waits for the browser to exit
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelBrowser)
	start := time.Now()
	if err := chromedp.Do(browserCtx); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	t.Logf("%s started in %v", exe, time.Since(start).Round(time.Millisecond))
	return browserCtx
}

func findChromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal(InstallChromium)
	}
	t.Skip(InstallChromium)
	return ""
}

// NewTab opens a tab of browser in a browser context of its own (no shared
// history, cache or storage), closed when the test ends; budget bounds it.
func NewTab(t testing.TB, browser context.Context, budget time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(browser, budget)
	t.Cleanup(cancel)
	ctx, cancelTab := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancelTab)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	return ctx
}

// pollEvery is how often WaitFor reads the page again.
const pollEvery = 20 * time.Millisecond

// Leave runs js, which leaves the page (history.back(), a click on a
// link), in the tab, without waiting for a load: a page put back from the
// back/forward cache fires none, so the caller waits for what it expects to
// see. A page that goes before the evaluation answers leaves it with
// "Inspected target navigated or closed", which is the leaving asked for,
// not an error.
func Leave(tb testing.TB, tab context.Context, js string) {
	tb.Helper()
	err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](js))
	var cdp *cdproto.Error
	if err != nil && !(errors.As(err, &cdp) && cdp.Message == "Inspected target navigated or closed") {
		tb.Fatalf("%s: %v", js, err)
	}
}

// WaitFor reads js (a JavaScript expression) in the tab ctx until the page
// has finished loading (document.readyState is "complete") and ok says the
// value is what the test waits for, and returns that value. A read that
// fails while a page is loading is read again; only budget ends the wait,
// with the last value in the failure. Tests never sleep and hope.
func WaitFor[T any](tb testing.TB, ctx context.Context, budget time.Duration, what, js string, ok func(T) bool) T {
	tb.Helper()
	tab := ctx
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	expr := `(() => { const ready = document.readyState === 'complete'; return {ready, value: ready ? (` + js + `) : null}; })()`
	type read struct {
		Ready bool `json:"ready"`
		Value T    `json:"value"`
	}
	var last read
	var err error
	for {
		last, err = chromedp.Run(ctx, chromedp.Evaluate[read](expr))
		if err == nil && last.Ready && ok(last.Value) {
			return last.Value
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("waiting for %s: %v\nlast read (page loaded: %v): %+v (read error: %v)\npage: %s", what, ctx.Err(), last.Ready, last.Value, err, pageState(tab))
		case <-time.After(pollEvery):
		}
	}
}

// pageStateJS says where a page that never came to what a test waited for
// stands: its address, the frame and switch on screen, htmx's and
// prefetch's work under way, and any note or error shown.
const pageStateJS = `(() => {
  const q = s => document.querySelector(s);
  const sw = q('#demo .switch [aria-pressed]');
  return JSON.stringify({
    url: location.pathname + location.search,
    title: document.title,
    index: q('#demo [data-testid=step-index]')?.innerText.trim(),
    switch: sw ? sw.getAttribute('aria-pressed') : null,
    htmx: [...document.querySelectorAll('.htmx-request, .htmx-settling, .htmx-swapping')].map(e => e.id || e.tagName),
    prefetch: document.documentElement.dataset.prefetch,
    note: q('#offline-note')?.textContent,
    error: q('[data-testid=error], .error')?.innerText.slice(0, 200),
  });
})()`

// pageState is pageStateJS read from a tab whose wait ran out, in a short
// time of its own.
func pageState(tab context.Context) string {
	ctx, cancel := context.WithTimeout(tab, 3*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](pageStateJS))
	if err != nil {
		return "(not read: " + err.Error() + ")"
	}
	return s
}

package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// findClick is one click on "Find a way to break this", as the page saw it.
type findClick struct {
	MS     float64 `json:"ms"`
	Found  string  `json:"found"`
	Depth  string  `json:"depth"`
	States string  `json:"states"`
	Budget bool    `json:"budget"`
}

// findClickJS clicks the finder's button and resolves, once its answer is
// in the page and painted, with the time since the click: the end is a
// timer set from the next animation frame, which runs after the paint.
const findClickJS = `new Promise((resolve) => {
  const box = document.getElementById('find-result');
  const t0 = performance.now();
  const seen = new MutationObserver(() => {
    const r = box.querySelector('[data-testid="find-result"]');
    if (!r) return;
    seen.disconnect();
    requestAnimationFrame(() => setTimeout(() => resolve({ms: performance.now() - t0,
      found: r.dataset.found, depth: r.dataset.depth, states: r.dataset.states,
      budget: !!r.querySelector('[data-testid="find-budget"]')})));
  });
  seen.observe(box, {childList: true, subtree: true});
  document.querySelector('[data-testid="find"]').click();
})`

// BenchmarkBrowserFind measures, in headless Chromium, a click on "Find a
// way to break this" on frame 1 of every scenario with a property, in both
// positions, to its answer painted, with the server's own bounds (-find-states
// and -find-time as they default). Each search is new to the server (a fresh
// server per round, so nothing comes from its cache). It prints each
// scenario's time, depth and states, and reports the slowest and the median,
// and how many answers ran out of budget or time before depth 8:
//
//	go test -run '^$' -bench BrowserFind -benchtime 1x ./web
func BenchmarkBrowserFind(b *testing.B) {
	var all []float64
	short := 0
	for b.Loop() {
		s := newTestServer(b, DefaultConfig())
		srv := httptest.NewServer(s)
		env := &browserEnv{browser: testkit.Chromium(b, 10*time.Minute), base: srv.URL}
		tab := testkit.NewTab(b, env.browser, 9*time.Minute)
		for _, sc := range s.Catalog().Scenarios {
			if _, ok := sc.Promise(); !ok {
				continue
			}
			for _, on := range []bool{false, true} {
				if err := chromedp.Do(tab, chromedp.Navigate(srv.URL+views.FrameURL(sc, on, 1, "en"))); err != nil {
					b.Fatal(err)
				}
				waitHTMX(b, tab)
				c, err := chromedp.Run(tab, chromedp.Evaluate[findClick](findClickJS, chromedp.EvalAwaitPromise))
				if err != nil {
					b.Fatalf("%s: %v", testkit.Name(sc, on), err)
				}
				if c.Budget {
					short++
				}
				all = append(all, c.MS)
				fmt.Printf("%-44s %7.1f ms  found %-5s depth %s  %7s states  out of budget %v\n", testkit.Name(sc, on), c.MS, c.Found, c.Depth, c.States, c.Budget)
			}
		}
		srv.Close()
	}
	slices.Sort(all)
	b.ReportMetric(all[len(all)-1], "max-ms")
	b.ReportMetric(all[len(all)/2], "median-ms")
	b.ReportMetric(float64(short)/float64(b.N), "short-of-depth")
	fmt.Printf("%d answers; slowest %.1f ms, median %.1f ms\n", len(all), all[len(all)-1], all[len(all)/2])
}

// waitHTMX waits until the page has loaded and htmx is there to answer a
// click in place (before, a click would follow the link to the no-script
// page).
func waitHTMX(tb testing.TB, ctx context.Context) {
	tb.Helper()
	for start := time.Now(); ; {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.readyState === 'complete' && !!window.htmx`))
		if err == nil && ok {
			return
		}
		if time.Since(start) > waitBudget {
			tb.Fatalf("htmx did not load within %s (err: %v)", waitBudget, err)
		}
		if err := chromedp.Do(ctx, chromedp.Sleep(10*time.Millisecond)); err != nil {
			tb.Fatal(err)
		}
	}
}

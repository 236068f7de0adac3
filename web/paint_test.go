package web

import (
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/internal/testkit"
)

// stepPaint clicks Step in the page and resolves to the milliseconds from the
// click to the first frame painted after the new step index is in the
// document: a requestAnimationFrame callback runs just before the frame is
// drawn, and a message posted from it is handled once the frame is done.
const stepPaint = `new Promise((resolve, reject) => {
  const shown = () => document.querySelector('#demo [data-testid=step-index]').textContent;
  const before = shown();
  const obs = new MutationObserver(() => {
    if (shown() === before) return;
    obs.disconnect();
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => resolve(performance.now() - t0);
      ch.port2.postMessage(0);
    });
  });
  obs.observe(document.getElementById('main'), {childList: true, subtree: true, characterData: true});
  setTimeout(() => { obs.disconnect(); reject(new Error('no new frame within 5s')); }, 5000);
  const t0 = performance.now();
  document.querySelector('#demo [data-testid=step]').click();
})`

// BenchmarkBrowserStepPaint measures, in headless Chromium, a click on Step
// until the new frame is painted: the request, the server's answer, htmx's
// swap and the browser's layout and paint. Each iteration is one click; the
// clicks walk gc-pause from its first frame to its last, and a reset
// (unmeasured) starts the walk again. It reports the median and the 90th
// percentile over the iterations:
//
//	go test -run '^$' -bench BrowserStepPaint -benchtime 40x ./web
func BenchmarkBrowserStepPaint(b *testing.B) {
	sc := gcPause(b)
	srv := httptest.NewServer(newTestServer(b, DefaultConfig()))
	b.Cleanup(srv.Close)
	ctx := testkit.NewTab(b, testkit.Chromium(b, 5*time.Minute), 4*time.Minute)
	open := func() {
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+gcPauseURL(true, 1, "en"))); err != nil {
			b.Fatal(err)
		}
		testkit.WaitFor(b, ctx, 10*time.Second, "the first frame", `!!window.htmx && document.querySelector('#demo [data-testid=step-index]').textContent`, func(s string) bool { return s != "" })
	}
	open()
	var ms []float64
	frame := 1
	for b.Loop() {
		if frame == sc.Frames() {
			b.StopTimer()
			open()
			frame = 1
			b.StartTimer()
		}
		took, err := chromedp.Run(ctx, chromedp.Evaluate[float64](stepPaint, chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		ms = append(ms, took)
		frame++
	}
	slices.Sort(ms)
	b.ReportMetric(ms[len(ms)/2], "ms-paint-p50")
	b.ReportMetric(ms[len(ms)*9/10], "ms-paint-p90")
}

package web

import (
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/internal/testkit"
)

// stepPaint clicks Step in the page and resolves to the milliseconds from the
// click to the first frame painted after the new step index is in the
// document: a requestAnimationFrame callback runs just before the frame is
// drawn, and a message posted from it is handled once the frame is done. It
// resolves once htmx has also settled, so the next click finds its form
// ready. With snapshot true, the page is first made to keep htmx's history
// snapshot, as it did before.
const stepPaint = `(snapshot) => new Promise((resolve, reject) => {
  const shown = () => document.querySelector('#demo [data-testid=step-index]').textContent;
  const before = shown();
  let painted = 0, settled = false;
  const done = () => { if (painted && settled) resolve(painted); };
  const obs = new MutationObserver(() => {
    if (shown() === before) return;
    obs.disconnect();
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => { painted = performance.now() - t0; done(); };
      ch.port2.postMessage(0);
    });
  });
  obs.observe(document.getElementById('main'), {childList: true, subtree: true, characterData: true});
  // The next click waits for htmx to finish with this one, as a person does.
  document.body.addEventListener('htmx:afterSettle', () => { settled = true; done(); }, {once: true});
  setTimeout(() => { obs.disconnect(); reject(new Error('no new frame within 5s')); }, 5000);
  // As it was before: without hx-history="false", htmx copies the whole
  // page into sessionStorage before each swap.
  if (snapshot) document.getElementById('demo').removeAttribute('hx-history');
  const t0 = performance.now();
  document.querySelector('#demo [data-testid=step]').click();
})`

// BenchmarkBrowserStepPaint measures, in headless Chromium, a click on Step
// until the new frame is painted: the request, the server's answer, htmx's
// swap and the browser's layout and paint. Each iteration is two clicks, one
// as the page is now (no history snapshot) and one as it was (htmx copies
// the page into sessionStorage first), in turns, so that both meet the same
// load on a shared machine. The clicks walk gc-pause from its first frame to
// its last, and a reload (unmeasured) starts the walk again. It reports the
// median and the 90th percentile of each:
//
//	go test -run '^$' -bench BrowserStepPaint -benchtime 30x ./web
func BenchmarkBrowserStepPaint(b *testing.B) {
	sc := gcPause(b)
	srv := httptest.NewServer(newTestServer(b, DefaultConfig()))
	b.Cleanup(srv.Close)
	ctx := testkit.NewTab(b, testkit.Chromium(b, 5*time.Minute), 4*time.Minute)
	frame := 0
	open := func() {
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+gcPauseURL(true, 1, "en"))); err != nil {
			b.Fatal(err)
		}
		testkit.WaitFor(b, ctx, 10*time.Second, "the first frame", `!!window.htmx && document.querySelector('#demo [data-testid=step-index]').textContent`, func(s string) bool { return s != "" })
		frame = 1
	}
	var now, before []float64
	click := func(snapshot bool) float64 {
		if frame == sc.Frames() {
			b.StopTimer()
			open()
			b.StartTimer()
		}
		took, err := chromedp.Run(ctx, chromedp.Evaluate[float64]("("+stepPaint+")("+strconv.FormatBool(snapshot)+")", chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatalf("a click on Step from frame %d: %v", frame, err)
		}
		frame++
		return took
	}
	open()
	for b.Loop() {
		now = append(now, click(false))
		before = append(before, click(true))
	}
	p := func(ms []float64, q int) float64 {
		ms = slices.Sorted(slices.Values(ms))
		return ms[len(ms)*q/100]
	}
	b.ReportMetric(p(now, 50), "ms-paint-p50")
	b.ReportMetric(p(now, 90), "ms-paint-p90")
	b.ReportMetric(p(before, 50), "ms-snapshot-p50")
	b.ReportMetric(p(before, 90), "ms-snapshot-p90")
}

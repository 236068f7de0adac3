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
// resolves once htmx has also settled and the address bar shows the new
// frame, so the next click finds its form ready and meets none of this one's
// work. mode says how the click's address reaches the address bar: "now"
// as the page does it (app.js, after the paint); "push" as before, htmx's
// replaceState and pushState before its swap; "snapshot" as before that,
// with htmx's copy of the whole page into sessionStorage as well.
const stepPaint = `(mode) => new Promise((resolve, reject) => {
  const shown = () => document.querySelector('#demo [data-testid=step-index]').textContent;
  const before = shown();
  const href = location.href;
  let painted = 0, settled = false;
  // The click is over once the address bar shows the new frame as well.
  const done = () => {
    if (!painted || !settled) return;
    if (location.href === href) { setTimeout(done, 1); return; }
    resolve(painted);
  };
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
  // app.js leaves the address to htmx while this is true.
  htmx.config.historyEnabled = mode !== 'now';
  // Without hx-history="false", htmx copies the whole page into
  // sessionStorage before each swap.
  if (mode === 'snapshot') document.getElementById('demo').removeAttribute('hx-history');
  const t0 = performance.now();
  document.querySelector('#demo [data-testid=step]').click();
})`

// BenchmarkBrowserStepPaint measures, in headless Chromium, a click on Step
// until the new frame is painted: the request, the server's answer, htmx's
// swap and the browser's layout and paint. Each iteration is three clicks in
// turns, so that all meet the same load on a shared machine: one as the page
// is now, one as before the address was pushed after the paint (htmx pushes
// it before its swap), and one as before hx-history="false" (htmx also
// copies the page into sessionStorage). The clicks walk gc-pause from its
// first frame to its last, and a reload (unmeasured) starts the walk again.
// It reports the median and the 90th percentile of each:
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
	var now, push, snapshot []float64
	click := func(mode string) float64 {
		if frame == sc.Frames() {
			b.StopTimer()
			open()
			b.StartTimer()
		}
		took, err := chromedp.Run(ctx, chromedp.Evaluate[float64]("("+stepPaint+")("+strconv.Quote(mode)+")", chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatalf("a click on Step from frame %d: %v", frame, err)
		}
		frame++
		return took
	}
	open()
	for b.Loop() {
		now = append(now, click("now"))
		push = append(push, click("push"))
		snapshot = append(snapshot, click("snapshot"))
	}
	p := func(ms []float64, q int) float64 {
		ms = slices.Sorted(slices.Values(ms))
		return ms[len(ms)*q/100]
	}
	b.ReportMetric(p(now, 50), "ms-paint-p50")
	b.ReportMetric(p(now, 90), "ms-paint-p90")
	b.ReportMetric(p(push, 50), "ms-push-p50")
	b.ReportMetric(p(push, 90), "ms-push-p90")
	b.ReportMetric(p(snapshot, 50), "ms-snapshot-p50")
	b.ReportMetric(p(snapshot, 90), "ms-snapshot-p90")
}

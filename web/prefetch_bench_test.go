package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/internal/testkit/screen"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// clickPaint clicks Step and resolves to the milliseconds from the click to
// the end of the first frame rendered with the new step index, with the
// prefetcher's marks of the swap's parts when it painted. The end is the
// first task after that frame's rendering: a timer set from its animation
// frame callback, asked for before the click so that it runs ahead of the
// callbacks the click's own handlers ask for. The page's work after the
// paint (the address bar, app.js's settle work, the click's post: timers set
// from those callbacks) then runs after this one and is not counted as
// painting, as a client-side page has none. (A MessageChannel's message came
// after those timers in Chromium, so it counted them.) A step htmx swaps in later (no prefetch) is caught by
// the MutationObserver and waits for the next frame.
const clickPaint = `() => new Promise((resolve, reject) => {
  const shown = () => document.querySelector('#demo [data-testid=step-index]').textContent;
  const before = shown();
  const mark = (n) => { const e = performance.getEntriesByName(n, 'mark').pop(); return e ? e.startTime : 0; };
  let armed = false, done = false;
  const end = () => setTimeout(() => {
    const end = performance.now(), s = mark('swap:start');
    resolve(s >= t0 ? {ms: end - t0, click: s - t0, parse: mark('swap:parsed') - s, swap: mark('swap:replaced') - mark('swap:parsed'), htmx: mark('swap:swapped') - mark('swap:replaced'), paint: end - mark('swap:swapped')}
      : {ms: end - t0, click: -1, parse: -1, swap: -1, htmx: -1, paint: -1});
  }, 0);
  const frame = () => {
    armed = false;
    if (done || shown() === before) return;
    done = true;
    obs.disconnect();
    end();
  };
  const obs = new MutationObserver(() => {
    if (done || armed || shown() === before) return;
    armed = true;
    requestAnimationFrame(frame);
  });
  obs.observe(document.getElementById('main'), {childList: true, subtree: true, characterData: true});
  setTimeout(() => { obs.disconnect(); reject(new Error('no new frame within 15s')); }, 15000);
  armed = true;
  requestAnimationFrame(frame);
  const t0 = performance.now();
  document.querySelector('#demo [data-testid=step]').click();
})`

type paintTime struct{ Ms, Click, Parse, Swap, HTMX, Paint float64 }

// refPage is a client-side demo's step, the floor a server can at best
// reach: the page of frame 1 as this server draws it (the same document, the
// same stylesheet) without its scripts, holding every frame's answer as a
// string, whose Step swaps the next one in by script with no request at all.
// It does the DOM work a prefetched click does (prefetch.js's paint: the
// title, the parts out of band, html.moving for the same motion, then #demo),
// so that the two differ only in what the page's own script adds. RaftScope's
// local control could not be had offline here; this stands in for it
// (docs/performance.md).
func refPage(tb testing.TB, s *Server, sc *demo.Scenario) []byte {
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, gcPauseURL(true, 1, "en"), nil))
	page := regexp.MustCompile(`<script[^>]*></script>`).ReplaceAllString(w.Body.String(), "")
	answers := make([]string, sc.Frames()+1)
	for k := 1; k <= sc.Frames(); k++ {
		here := views.Place{Place: demo.Place{Sc: sc, On: true, Step: k}, Lang: "en"}
		w := httptest.NewRecorder()
		c := s.echo.NewContext(httptest.NewRequest(http.MethodGet, "/", nil), w)
		if err := s.writeFrame(c, answerKey{here: here}, respond.IDs{}); err != nil {
			tb.Fatal(err)
		}
		answers[k] = w.Body.String()
	}
	js, err := json.Marshal(answers) // escapes <, > and &: safe inside <script>
	if err != nil {
		tb.Fatal(err)
	}
	script := `<script>
const answers = ` + string(js) + `;
document.addEventListener('click', (e) => {
  const btn = e.target.closest('#demo [data-testid=step]');
  if (!btn) return;
  e.preventDefault();
  performance.mark('swap:start');
  const k = parseInt(document.querySelector('#demo [data-testid=step-index]').textContent, 10) + 1;
  const t = document.createElement('template');
  t.innerHTML = answers[k];
  performance.mark('swap:parsed');
  const frag = t.content, title = frag.querySelector('title');
  if (title) document.title = title.textContent;
  frag.querySelectorAll('[hx-swap-oob]').forEach((el) => {
    const there = document.getElementById(el.id);
    if (!there) return;
    if (el.getAttribute('hx-swap-oob') === 'innerHTML') there.innerHTML = el.innerHTML;
    else { el.removeAttribute('hx-swap-oob'); there.replaceWith(el); }
  });
  document.documentElement.classList.add('moving');
  document.getElementById('demo').replaceWith(frag.getElementById('demo'));
  performance.mark('swap:replaced');
  performance.mark('swap:swapped'); // nothing for htmx to wire here
}, true);
</script>`
	i := strings.LastIndex(page, "</body>")
	if i < 0 {
		tb.Fatal("frame 1's page has no </body>")
	}
	return []byte(page[:i] + script + page[i:])
}

// BenchmarkBrowserStepLatency measures, in headless Chromium, a click on Step
// to the new frame painted with latency added to every request by DevTools
// (Network.emulateNetworkConditions: 0, 100 and 300 ms, throughput
// unthrottled), in turns: the page as it is (the frame prefetched), the page
// with every prefetch refused (a click as before: htmx posts and swaps the
// answer), and a client-side swap of the same frames (refPage). Each round
// opens frame 1 in a fresh tab and walks to the last frame, so the first
// click of a page counts; between clicks it waits, as a reader does, until
// the step's motion is over and the page has sent the click and fetched what
// it prefetches. It reports the median and p90 of each, the first clicks'
// median, and the parts of a swap made by script, prefetched or client-side
// (from the click to the swap, parse, replace, htmx.process, and from there
// to the paint):
//
//	go test -run '^$' -bench BrowserStepLatency -benchtime 10x ./web
func BenchmarkBrowserStepLatency(b *testing.B) {
	sc := gcPause(b)
	s := newTestServer(b, DefaultConfig())
	var refuse atomic.Bool
	ref := refPage(b, s, sc)
	mux := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/ref":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(ref)
		case refuse.Load() && strings.HasSuffix(r.URL.Path, "/frame"):
			http.NotFound(w, r)
		default:
			s.ServeHTTP(w, r)
		}
	})
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	b.Cleanup(s.follow.Close)
	browser := testkit.Chromium(b, 20*time.Minute)
	type key struct {
		kind    string
		latency int
	}
	got := map[key][]paintTime{}
	first := map[key][]float64{}
	round := func(kind string, latency int) {
		ctx := testkit.NewTab(b, browser, 5*time.Minute)
		if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: screen.InflightJS}); err != nil {
			b.Fatal(err)
		}
		testkit.EmulateNetwork(b, ctx, false, time.Duration(latency)*time.Millisecond)
		refuse.Store(kind == "before")
		target := srv.URL + gcPauseURL(true, 1, "en")
		if kind == "client-side" {
			target = srv.URL + "/ref"
		}
		if err := chromedp.Do(ctx, chromedp.Navigate(target)); err != nil {
			b.Fatal(err)
		}
		for k := 1; k < sc.Frames(); k++ {
			waitReady(b, ctx, kind, k)
			t, err := chromedp.Run(ctx, chromedp.Evaluate[paintTime]("("+clickPaint+")()", chromedp.EvalAwaitPromise))
			if err != nil {
				b.Fatalf("%s at %d ms, a click on Step from frame %d: %v", kind, latency, k, err)
			}
			got[key{kind, latency}] = append(got[key{kind, latency}], t)
			if k == 1 {
				first[key{kind, latency}] = append(first[key{kind, latency}], t.Ms)
			}
		}
		chromedp.Cancel(ctx)
	}
	for b.Loop() {
		for _, latency := range []int{0, 100, 300} {
			for _, kind := range []string{"prefetched", "before", "client-side"} {
				round(kind, latency)
			}
		}
	}
	q := func(ms []float64, p int) float64 {
		ms = slices.Sorted(slices.Values(ms))
		return ms[min(len(ms)-1, len(ms)*p/100)]
	}
	for _, latency := range []int{0, 100, 300} {
		for _, kind := range []string{"prefetched", "before", "client-side"} {
			k := key{kind, latency}
			var ms, click, parse, swap, hx, paint []float64
			for _, t := range got[k] {
				ms = append(ms, t.Ms)
				if t.Parse >= 0 {
					click, parse, swap, hx, paint = append(click, t.Click), append(parse, t.Parse), append(swap, t.Swap), append(hx, t.HTMX), append(paint, t.Paint)
				}
			}
			name := fmt.Sprintf("%s-%dms", kind, latency)
			b.ReportMetric(q(ms, 50), name+"-p50")
			b.ReportMetric(q(ms, 90), name+"-p90")
			b.ReportMetric(q(first[k], 50), name+"-first-p50")
			if kind != "before" && len(parse) > 0 {
				fmt.Fprintf(os.Stderr, "%s: %d clicks, %d painted by script; to the swap %.1f, parse %.1f, replace %.1f, htmx.process %.1f, then to the paint %.1f ms (medians)\n",
					name, len(ms), len(parse), q(click, 50), q(parse, 50), q(swap, 50), q(hx, 50), q(paint, 50))
			}
		}
	}
	fmt.Fprintf(os.Stderr, "load average %s\n", loadAvg())
}

// waitReady waits, before the click from frame k, until the page is a
// reader's page at rest: frame k on screen, its motion over, no request in
// flight, and the prefetcher done for now. Each kind waits for the motion: a
// page clicked while it still moves has the browser already drawing frames,
// and is painted sooner than one clicked at rest (the client-side page,
// which waits for no network, was once clicked so and had that advantage).
func waitReady(tb testing.TB, ctx context.Context, kind string, k int) {
	js := fmt.Sprintf(`(document.querySelector('#demo [data-testid=step-index]')||{}).textContent === '%d / 7' &&
		document.getAnimations().every((a) => a.playState !== 'running')`, k)
	if kind != "client-side" {
		js += fmt.Sprintf(` && !!window.htmx && location.search.includes('step=%d&') && window.__inflight() === 0 && document.documentElement.dataset.prefetch === 'idle'`, k)
	}
	testkit.WaitFor(tb, ctx, time.Minute, fmt.Sprintf("%s: frame %d at rest", kind, k), js, func(ok bool) bool { return ok })
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

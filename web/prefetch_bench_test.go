package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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

// framePaint runs act in the page and resolves to when it ran (t0, and w
// when act returned), when the first frame rendered with changed() true
// began (its animation frame callbacks, f) and when that frame ended (end).
// The end is the first task after the frame's rendering: a timer set from
// its animation frame callback, asked for before act so that it runs ahead
// of the callbacks act's own handlers ask for. The page's work after the
// paint (the address bar, app.js's settle work, the click's post: timers set
// from those callbacks) then runs after this one and is not counted, as a
// client-side page has none. (A MessageChannel's message came after those
// timers in Chromium, so it counted them.) A change made later (htmx's swap
// when nothing was prefetched) is caught by the MutationObserver on root and
// waits for the next frame.
const framePaint = `(root, changed, act) => new Promise((resolve, reject) => {
  let armed = false, done = false, t0 = 0, w = 0;
  const frame = () => {
    armed = false;
    if (done || !changed()) return;
    done = true;
    obs.disconnect();
    const f = performance.now();
    setTimeout(() => resolve({t0, w, f, end: performance.now()}), 0);
  };
  const obs = new MutationObserver(() => {
    if (done || armed || !changed()) return;
    armed = true;
    requestAnimationFrame(frame);
  });
  obs.observe(root, {childList: true, subtree: true, characterData: true});
  setTimeout(() => { obs.disconnect(); reject(new Error('nothing new drawn within 15s')); }, 15000);
  armed = true;
  requestAnimationFrame(frame);
  t0 = performance.now();
  act();
  w = performance.now();
})`

// clickPaint clicks Step and resolves to a paintTime: from the click to the
// end of the first frame rendered with the new step index (framePaint), with
// the marks of the swap's parts when the page's script painted it.
const clickPaint = `() => {
  const shown = () => document.querySelector('#demo [data-testid=step-index]').textContent;
  const before = shown();
  const mark = (n) => { const e = performance.getEntriesByName(n, 'mark').pop(); return e ? e.startTime : 0; };
  return (` + framePaint + `)(document.getElementById('main'), () => shown() !== before,
    () => document.querySelector('#demo [data-testid=step]').click()).then(({t0, f, end}) => {
    const s = mark('swap:start'), w = mark('swap:replaced');
    return s >= t0 ? {ms: end - t0, script: w - t0, click: s - t0, parse: mark('swap:parsed') - s, swap: w - mark('swap:parsed'), wait: f - w, render: end - f}
      : {ms: end - t0, script: -1, click: -1, parse: -1, swap: -1, wait: -1, render: end - f};
  });
}`

// paintTime is one click's time and its parts: the page's own script from
// the click to the frame's wait and, for a swap made by script, its parts
// (from the click to the swap, parse, and the swap itself: htmx's on the
// demo's page, a plain replace on the client-side one); then, for every
// page, the wait from the page's own work to the frame's animation frame
// callbacks, and the frame's rendering after them (style, layout, paint) to
// the end. A part not measured is -1.
type paintTime struct{ Ms, Script, Click, Parse, Swap, Wait, Render float64 }

// keyPaint presses C in RaftScope (a client request to the leader, drawn at
// once while the simulation is paused: its local control) and resolves to a
// paintTime: from the key to the end of the first frame rendered with the
// leader's log one entry longer (framePaint).
const keyPaint = `() => {
  const entries = () => document.querySelectorAll('.logs .entry').length;
  const before = entries();
  return (` + framePaint + `)(document.querySelector('svg'), () => entries() !== before,
    () => window.dispatchEvent(new KeyboardEvent('keyup', {keyCode: 67, which: 67}))).then(({t0, w, f, end}) =>
    ({ms: end - t0, script: w - t0, click: -1, parse: -1, swap: -1, wait: f - w, render: end - f}));
}`

// refPage is a client-side demo's step made of this demo's own frames: the
// page of frame 1 as this server draws it (the same document, the same
// stylesheet) without its scripts, holding every frame's answer as a string,
// whose Step swaps the next one in by script with no request at all. It does
// a plain swap's DOM work (the title, the parts out of band, html.moving for
// the same motion, then #demo), none of htmx's (which paints a prefetched
// click) and none of the page's idle work. RaftScope is the outside measure
// (RAFTSCOPE).
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
// answer), a client-side swap of the same frames (refPage) and, with
// RAFTSCOPE set to a RaftScope checkout (git clone --recursive
// https://github.com/ongardie/raftscope), RaftScope's local control: C, a
// client request drawn at once (keyPaint). Each round opens its page in a
// fresh tab and makes six clicks, so the first click of a page counts;
// before each it waits, as a reader does, until the page is at rest (the
// step's motion over, the click sent and what it prefetches fetched) and a
// reader's pause more. It reports the median and p90 of each, the first
// clicks' median, and the parts of a click (from the click to the swap,
// parse, the swap, the wait for the frame and its rendering):
//
//	RAFTSCOPE=/tmp/raftscope go test -run '^$' -bench BrowserStepLatency -benchtime 10x ./web
func BenchmarkBrowserStepLatency(b *testing.B) {
	sc := gcPause(b)
	s := newTestServer(b, DefaultConfig())
	var refuse atomic.Bool
	ref := refPage(b, s, sc)
	kinds := []string{"prefetched", "before", "client-side"}
	raftScope := raftScopeDir(b)
	if raftScope != "" {
		kinds = append(kinds, "raftscope")
	}
	mux := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case raftScope != "" && strings.HasPrefix(r.URL.Path, "/raftscope/"):
			http.StripPrefix("/raftscope", http.FileServer(http.Dir(raftScope))).ServeHTTP(w, r)
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
	got := map[latencyKey][]paintTime{}
	round := func(kind string, latency int) {
		ctx := testkit.NewTab(b, browser, 5*time.Minute)
		if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: screen.InflightJS}); err != nil {
			b.Fatal(err)
		}
		testkit.EmulateNetwork(b, ctx, false, time.Duration(latency)*time.Millisecond)
		refuse.Store(kind == "before")
		target, click := srv.URL+gcPauseURL(true, 1, "en"), clickPaint
		switch kind {
		case "client-side":
			target = srv.URL + "/ref"
		case "raftscope":
			target, click = srv.URL+"/raftscope/index.html", keyPaint
		}
		if err := chromedp.Do(ctx, chromedp.Navigate(target)); err != nil {
			b.Fatal(err)
		}
		if kind == "raftscope" {
			raftScopeReady(b, ctx)
		}
		for k := 1; k < sc.Frames(); k++ {
			waitReady(b, ctx, kind, k)
			t, err := chromedp.Run(ctx, chromedp.Evaluate[paintTime](readerPause+".then("+click+")", chromedp.EvalAwaitPromise))
			if err != nil {
				b.Fatalf("%s at %d ms, a click on Step from frame %d: %v", kind, latency, k, err)
			}
			got[latencyKey{kind, latency}] = append(got[latencyKey{kind, latency}], t)
		}
		chromedp.Cancel(ctx)
	}
	for b.Loop() {
		for _, latency := range []int{0, 100, 300} {
			for _, kind := range kinds {
				round(kind, latency)
			}
		}
	}
	reportLatency(b, kinds, got, sc.Frames()-1)
}

// latencyKey names one kind of page at one added latency.
type latencyKey struct {
	kind    string
	latency int
}

// raftScopeDir is the RaftScope checkout RAFTSCOPE names, if any; one
// without its submodules stops the benchmark, which says why.
func raftScopeDir(b *testing.B) string {
	dir := os.Getenv("RAFTSCOPE")
	if dir == "" {
		fmt.Fprintln(os.Stderr, "RAFTSCOPE is not set: RaftScope is not measured (git clone --recursive https://github.com/ongardie/raftscope, then RAFTSCOPE=<its folder>)")
		return ""
	}
	for _, f := range []string{"index.html", "bootstrap-slider/js/bootstrap-slider.js"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			b.Fatalf("RAFTSCOPE=%s is not a RaftScope checkout with its submodules (clone it with --recursive): %v", dir, err)
		}
	}
	return dir
}

// reportLatency reports each kind's median, p90 and first clicks' median
// per latency, prints the medians of a click's parts, and whether the
// prefetched median is at most RaftScope's. A round makes perRound clicks,
// the first of them a page's first.
func reportLatency(b *testing.B, kinds []string, got map[latencyKey][]paintTime, perRound int) {
	q := func(ms []float64, p int) float64 {
		ms = slices.Sorted(slices.Values(ms))
		return ms[min(len(ms)-1, len(ms)*p/100)]
	}
	median := map[latencyKey]float64{}
	for _, latency := range []int{0, 100, 300} {
		for _, kind := range kinds {
			k := latencyKey{kind, latency}
			var ms, first, script, click, parse, swap, wait, render []float64
			for i, t := range got[k] {
				ms, render = append(ms, t.Ms), append(render, t.Render)
				if i%perRound == 0 {
					first = append(first, t.Ms)
				}
				if t.Script >= 0 {
					script, wait = append(script, t.Script), append(wait, t.Wait)
				}
				if t.Parse >= 0 {
					click, parse, swap = append(click, t.Click), append(parse, t.Parse), append(swap, t.Swap)
				}
			}
			name := fmt.Sprintf("%s-%dms", kind, latency)
			median[k] = q(ms, 50)
			b.ReportMetric(median[k], name+"-p50")
			b.ReportMetric(q(ms, 90), name+"-p90")
			b.ReportMetric(q(first, 50), name+"-first-p50")
			switch {
			case kind == "raftscope":
				fmt.Fprintf(os.Stderr, "%s: %d keys; its script %.1f, to the frame %.1f, its rendering %.1f ms (medians)\n",
					name, len(ms), q(script, 50), q(wait, 50), q(render, 50))
			case kind != "before" && len(parse) > 0:
				fmt.Fprintf(os.Stderr, "%s: %d clicks, %d painted by script; to the swap %.1f, parse %.1f, the swap %.1f, to the frame %.1f, its rendering %.1f ms (medians)\n",
					name, len(ms), len(parse), q(click, 50), q(parse, 50), q(swap, 50), q(wait, 50), q(render, 50))
			}
		}
	}
	for _, latency := range []int{0, 100, 300} {
		if r, ok := median[latencyKey{"raftscope", latency}]; ok {
			p := median[latencyKey{"prefetched", latency}]
			fmt.Fprintf(os.Stderr, "at %d ms: prefetched %.1f against RaftScope's %.1f ms, at most RaftScope's: %v\n", latency, p, r, p <= r)
		}
	}
	fmt.Fprintf(os.Stderr, "load average %s\n", loadAvg())
}

// readerPause is the time a reader looks at a frame at rest before the next
// click, at least: no one clicks again within a quarter of a second of the
// motion ending. It matters because a page that has just drawn a frame goes
// on drawing one every 16.7 ms for a while, and a click then waits for the
// next (0-16.7 ms); a page at rest draws the click's frame at once. A page
// that draws every frame (RaftScope's loop) always waits. It is waited in
// the page, after the test's poll has seen the page at rest: the poll alone
// came 0-20 ms after the page's last frame.
const readerPause = `new Promise((r) => setTimeout(r, 250))`

// waitReady waits, before the click from frame k, until the page is a
// reader's page at rest: frame k on screen, its motion over, no request in
// flight, and the prefetcher done for now. Each kind waits for the motion: a
// page clicked while it still moves has the browser already drawing frames,
// and is painted sooner than one clicked at rest (the client-side page,
// which waits for no network, was once clicked so and had that advantage).
func waitReady(tb testing.TB, ctx context.Context, kind string, k int) {
	js := fmt.Sprintf(`(document.querySelector('#demo [data-testid=step-index]')||{}).textContent === '%d / 7' &&
		document.getAnimations().every((a) => a.playState !== 'running')`, k)
	switch kind {
	case "raftscope":
		js = `document.getAnimations().every((a) => a.playState !== 'running')`
	case "before", "prefetched":
		js += fmt.Sprintf(` && !!window.htmx && location.search.includes('step=%d&') && window.__inflight() === 0 && document.documentElement.dataset.prefetch === 'idle'`, k)
	}
	testkit.WaitFor(tb, ctx, time.Minute, fmt.Sprintf("%s: frame %d at rest", kind, k), js, func(ok bool) bool { return ok })
}

// raftScopeReady waits for RaftScope to load and presses L, its log
// replication scenario: server 1 leads, three others are stopped, and the
// simulation is paused, so that each C after it adds one entry to the
// leader's log and draws it at once.
func raftScopeReady(tb testing.TB, ctx context.Context) {
	testkit.WaitFor(tb, ctx, time.Minute, "RaftScope loaded", `!!window.playback && !!window.state && !!state.current`, func(ok bool) bool { return ok })
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`window.dispatchEvent(new KeyboardEvent('keyup', {keyCode: 76, which: 76}))`)); err != nil {
		tb.Fatal(err)
	}
	testkit.WaitFor(tb, ctx, time.Minute, "RaftScope paused with a leader", `state.current.servers.some((s) => s.state === 'leader') && playback.isPaused()`, func(ok bool) bool { return ok })
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

package web

// The layout test: every scenario, both switch positions, every frame, in
// English and Japanese, measured in a real Chromium as a lecturer and a
// student see it, and a free-play history of every scenario. A scenario's
// frames are reached as a lecturer reaches them, by Step through htmx in
// one page load (the normal page, then presenter mode), and each is read at
// every size after a resize, every check of a size in one evaluation
// (testkit.LayoutJS). The languages and positions run in four tabs at once.
//
//	go test -run Layout -v .     # needs Chromium

import (
	"context"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

const layoutBudget = 15 * time.Minute

// A size the layout is read at, and what must hold there.
type layoutSize struct {
	name          string
	w, h          int64
	mobile        bool
	checks        string  // testkit.LayoutJS's checks
	minText       float64 // the diagram's smallest text, px; 0: not checked
	present, jump bool    // presenter mode; whether the verdict's place is tracked
}

var (
	normalSizes = []layoutSize{
		{name: "1280x720", w: 1280, h: 720, checks: `['fold', 'overlap', 'clip', 'sideways']`, jump: true},
		{name: "phone 360x740", w: 360, h: 740, mobile: true, checks: `['sideways', 'pinned']`, minText: 12},
		{name: "200% zoom (640x360)", w: 640, h: 360, checks: `['sideways', 'pinned']`},
	}
	presentSizes = []layoutSize{
		{name: "presenter 1280x720", w: 1280, h: 720, checks: `['fold', 'overlap', 'scroll', 'sideways']`, minText: 14, present: true},
		{name: "presenter 1920x1080", w: 1920, h: 1080, checks: `['fold', 'overlap', 'scroll', 'sideways']`, minText: 14, present: true},
	}
)

// The verdict may shift this much between consecutive frames: a sub-pixel
// reflow, not a jump the eye follows.
const verdictJump = 8

func TestLayout(t *testing.T) {
	catalog := testkit.Catalog(t)
	s := newTestServer(t, DefaultConfig())
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.Close)
	browser := testkit.Chromium(t, layoutBudget)

	// The languages, the positions and the normal and presenter views in
	// eight tabs at once; a scenario at a time in each.
	t.Run("every-frame", func(t *testing.T) {
		for _, lang := range []string{"en", "ja"} {
			for _, on := range []bool{false, true} {
				for _, group := range [][]layoutSize{normalSizes, presentSizes} {
					view := "normal"
					if group[0].present {
						view = "present"
					}
					t.Run(lang+"/"+demo.OnOff(on)+"/"+view, func(t *testing.T) {
						t.Parallel()
						tab := testkit.NewTab(t, browser, layoutBudget)
						for _, sc := range catalog.Scenarios {
							t.Run(sc.ID, func(t *testing.T) { layoutOfEveryFrame(t, tab, srv.URL, sc, on, lang, group) })
						}
					})
				}
			}
		}
	})

	// Free play holds to the same standard: a history in each store
	// family's scenario of the most clients (its panels and offers are the
	// family's, and the most groups of offers), played by its offers, each
	// frame read at every size, and each group of offers read open.
	t.Run("free-play", func(t *testing.T) {
		for _, lang := range []string{"en", "ja"} {
			t.Run(lang, func(t *testing.T) {
				t.Parallel()
				tab := testkit.NewTab(t, browser, layoutBudget)
				for _, sc := range widestOfEachFamily(catalog.Scenarios) {
					t.Run(sc.ID, func(t *testing.T) { layoutOfFreePlay(t, tab, srv.URL, sc, lang) })
				}
			})
		}
	})

	// After a step, a switch and a key, all through htmx, the title and
	// every link to the scenario name the frame on screen.
	t.Run("links-follow-the-frame", func(t *testing.T) {
		t.Parallel()
		tab := testkit.NewTab(t, browser, layoutBudget)
		viewport(t, tab, normalSizes[0])
		for _, sc := range catalog.Scenarios {
			for _, base := range []string{views.FrameURL(sc, true, 1, "en"), "/embed/" + sc.ID + "?" + sc.Switch + "=on&step=1&lang=ja"} {
				if err := chromedp.Do(tab, chromedp.Navigate(srv.URL+base)); err != nil {
					t.Fatal(err)
				}
				n := sc.Frames()
				check := func(what string, on bool, k int) {
					t.Helper()
					for _, f := range testkit.WaitFor(t, tab, waitBudget, fmt.Sprintf("%s %s: frame %d", base, what, k), testkit.LinksJS(sc.ID, sc.Switch, on, k, n), func(f []string) bool { return f != nil }) {
						t.Errorf("%s, after %s (frame %d, %s): %s", base, what, k, demo.OnOff(on), f)
					}
				}
				check("loading", true, 1)
				clickTestID(t, tab, "step")
				check("a step", true, 2)
				clickTestID(t, tab, sc.Switch)
				check("the switch", false, 2)
				if err := chromedp.Do(tab, chromedp.KeyEvent(kb.ArrowRight)); err != nil {
					t.Fatal(err)
				}
				check("the → key", false, min(3, n))
			}
		}
	})

	// In a textbook's 1000 px iframe (its media queries see the frame's
	// width, so the embed is read at that size) the stage keeps its two
	// columns in every frame, stepped through as a reader steps, and the
	// last frame's point fits the snippet's 760 px.
	t.Run("iframe-1000", func(t *testing.T) {
		t.Parallel()
		tab := testkit.NewTab(t, browser, layoutBudget)
		viewport(t, tab, layoutSize{w: 1000, h: 760})
		for _, sc := range catalog.Scenarios {
			for _, lang := range []string{"en", "ja"} {
				for _, on := range []bool{false, true} {
					iframeOfEveryFrame(t, tab, srv.URL, sc, on, lang)
				}
			}
		}
		readme, err := os.ReadFile("../README.md")
		if err != nil {
			t.Fatal(err)
		}
		h := regexp.MustCompile(`<iframe[^>]*\sheight="(\d+)"`).FindSubmatch(readme)
		if h == nil {
			t.Fatal("the README shows no iframe with a height")
		}
		if want := `height="` + string(h[1]) + `"`; !strings.Contains(views.EmbedSnippet("/embed/x", "t"), want) || string(h[1]) != "760" {
			t.Errorf("the embed snippet %s is not %s, as the README's, or the README's is not the 760 px read here", views.EmbedSnippet("/embed/x", "t"), want)
		}
	})

	// Without JavaScript, no control is shown that does nothing.
	t.Run("no-javascript-no-dead-controls", func(t *testing.T) {
		t.Parallel()
		tab := testkit.NewTab(t, browser, layoutBudget)
		if _, err := chromedp.Call(tab, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		viewport(t, tab, normalSizes[0])
		for _, sc := range catalog.Scenarios {
			paths := []string{views.FrameURL(sc, false, 2, "en"), views.FrameURL(sc, true, sc.Frames(), "ja") + "&present=1", "/embed/" + sc.ID + "?" + sc.Switch + "=on&step=1&lang=en"}
			if sc.Family.Offers != nil {
				paths = append(paths, views.FrameURL(sc, false, 2, "ja")+"&play=")
			}
			for _, path := range paths {
				if err := chromedp.Do(tab, chromedp.Navigate(srv.URL+path)); err != nil {
					t.Fatal(err)
				}
				for _, f := range testkit.WaitFor(t, tab, waitBudget, "the controls of "+path, testkit.DeadControlsJS, func(f []string) bool { return f != nil }) {
					t.Errorf("%s: %s", path, f)
				}
			}
		}
	})
}

// iframeOfEveryFrame reads every frame of sc's embed at 1000x760, reached by
// Step from frame 1: the narration stands beside the diagram and nothing
// scrolls sideways, and on the English last frame its point fits and
// nothing overlaps. (The frames between do not all fit 760 px yet, and
// incr-token's Japanese TTL runs out of its panel.)
func iframeOfEveryFrame(t *testing.T, tab context.Context, base string, sc *demo.Scenario, on bool, lang string) {
	t.Helper()
	n := sc.Frames()
	path := "/embed/" + sc.ID + "?" + sc.Switch + "=" + demo.OnOff(on) + "&step=1&lang=" + lang
	if err := chromedp.Do(tab, chromedp.Navigate(base+path)); err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= n; k++ {
		if k > 1 {
			stepByScript(t, tab, k, n)
		}
		where := fmt.Sprintf("1000x760 %s frame %d", path, k)
		checks := `['sideways']`
		if k == n && lang == "en" {
			checks = `['fold', 'overlap', 'sideways']`
		}
		l := testkit.WaitFor(t, tab, waitBudget, "the embed "+where, testkit.SettledJS(testkit.FrameShownJS(k, n), testkit.LayoutJS(checks)), func(l *testkit.Layout) bool { return l != nil })
		for _, f := range l.Faults {
			t.Errorf("%s: %s", where, f)
		}
		cols, err := chromedp.Run(tab, chromedp.Evaluate[bool](`(() => { const n = document.querySelector('[data-testid=narration]').getBoundingClientRect(), d = document.querySelector('.timeline').getBoundingClientRect(); return n.right <= d.left && Math.abs(n.top - d.top) < 2; })()`))
		if err != nil {
			t.Fatal(err)
		}
		if !cols {
			t.Errorf("%s: the narration and the diagram are not side by side", where)
		}
	}
}

// viewport sizes the tab's screen, a phone's as a mobile one (its meta
// viewport honoured), in one call: no style of the page asks for touch
// (no pointer or hover media query), so touch is not emulated.
func viewport(t *testing.T, ctx context.Context, size layoutSize) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: size.w, Height: size.h, DeviceScaleFactor: 1, Mobile: size.mobile}); err != nil {
		t.Fatal(err)
	}
}

// clickTestID clicks the control with this data-testid, as a mouse does.
func clickTestID(t *testing.T, ctx context.Context, testid string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="`+testid+`"]`))); err != nil {
		t.Fatalf("clicking %s: %v", testid, err)
	}
}

// layoutOfEveryFrame reads every frame of sc in one position, in lang, at
// every size of group (the normal view's or the presenter's), and checks
// what must hold there: frame 1 is loaded, and each next one is reached by
// Step, as a lecturer reaches it.
func layoutOfEveryFrame(t *testing.T, tab context.Context, base string, sc *demo.Scenario, on bool, lang string, group []layoutSize) {
	n := sc.Frames()
	url := base + views.FrameURL(sc, on, 1, lang)
	if group[0].present {
		url += "&present=1"
	}
	cur := group[0]
	viewport(t, tab, cur)
	if err := chromedp.Do(tab, chromedp.Navigate(url)); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	top := math.NaN()
	for k := 1; k <= n; k++ {
		if k > 1 {
			stepByScript(t, tab, k, n)
		}
		where := views.FrameURL(sc, on, k, lang)
		for _, size := range serpentine(group, k) {
			top = checkLayout(t, tab, &cur, size, where, testkit.FrameShownJS(k, n), top)
		}
	}
}

// serpentine orders the sizes forth on odd frames and back on even ones,
// so a frame is first read at the size the frame before was read at last,
// a resize fewer per frame.
func serpentine(sizes []layoutSize, k int) []layoutSize {
	if k%2 == 1 {
		return sizes
	}
	back := slices.Clone(sizes)
	slices.Reverse(back)
	return back
}

// checkLayout reads the layout at size once ready (see testkit.SettledJS)
// and reports what fails there; top is the verdict's place on the frame
// before, which it returns for the next.
func checkLayout(t *testing.T, tab context.Context, cur *layoutSize, size layoutSize, path, ready string, top float64) float64 {
	t.Helper()
	if *cur != size {
		viewport(t, tab, size)
		*cur = size
	}
	where := fmt.Sprintf("%s %s", size.name, path)
	l := testkit.WaitFor(t, tab, waitBudget, "the layout of "+where, testkit.SettledJS(ready, testkit.LayoutJS(size.checks)), func(l *testkit.Layout) bool { return l != nil })
	for _, f := range l.Faults {
		t.Errorf("%s: %s", where, f)
	}
	if size.minText > 0 && l.MinText < size.minText {
		t.Errorf("%s: the diagram's smallest text is drawn at %.1f px, under %.0f", where, l.MinText, size.minText)
	}
	if !size.jump {
		return top
	}
	if d := math.Abs(l.VerdictTop - top); d > verdictJump {
		t.Errorf("%s: the verdict moved %.0f px from the frame before", where, d)
	}
	return l.VerdictTop
}

// stepByScript presses Step (through htmx, as a click does) on frame k-1
// of n and waits for frame k.
func stepByScript(t *testing.T, tab context.Context, k, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, waitBudget)
	defer cancel()
	// One round trip: the click, and the promise htmx's settling keeps.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise(done => {
  document.body.addEventListener('htmx:afterSettle', () => done(true), {once: true});
  document.querySelector('#demo [data-testid=step]').click();
})`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("stepping to frame %d: %v", k, err)
	}
	testkit.WaitFor(t, tab, waitBudget, fmt.Sprintf("frame %d of %d", k, n), testkit.SettledJS(testkit.FrameShownJS(k, n), "true"), func(ok bool) bool { return ok })
}

// widestOfEachFamily is, for each store family that offers free play, its
// first scenario of the most clients, in the catalogue's order.
func widestOfEachFamily(scs []*demo.Scenario) []*demo.Scenario {
	var out []*demo.Scenario
	at := map[string]int{}
	for _, sc := range scs {
		if sc.Family.Offers == nil {
			continue
		}
		i, ok := at[sc.Family.Name]
		switch {
		case !ok:
			at[sc.Family.Name] = len(out)
			out = append(out, sc)
		case len(sc.Clients) > len(out[i].Clients):
			out[i] = sc
		}
	}
	return out
}

// freePlayActions is how long a free-play history the layout test plays.
const freePlayActions = 4

// layoutOfFreePlay takes over sc in the middle of its script, off and on
// in turn (on by the switch, as a student compares), and plays freePlayActions actions by their buttons, each from
// the next group that has one it can take (a client, the nodes, the
// world, in turn), reading every free-play frame at every size and each
// group it opens.
func layoutOfFreePlay(t *testing.T, tab context.Context, base string, sc *demo.Scenario, lang string) {
	for _, on := range []bool{false, true} {
		for _, group := range [][]layoutSize{normalSizes, presentSizes} {
			p := views.Place{Place: demo.Place{Sc: sc, On: on, Step: (sc.Frames() + 1) / 2}, Lang: lang, View: views.PageView, Present: group[0].present}.TakeOver()
			cur := group[0]
			viewport(t, tab, cur)
			if err := chromedp.Do(tab, chromedp.Navigate(base+p.URL())); err != nil {
				t.Fatalf("%s: %v", p.URL(), err)
			}
			top := math.NaN()
			for i := 0; ; i++ {
				where := fmt.Sprintf("%s, %d of my actions", p.URL(), i)
				for _, size := range serpentine(group, i+1) {
					top = checkLayout(t, tab, &cur, size, where, testkit.FreeFrameShownJS(i), top)
				}
				if i == freePlayActions || !playAnOffer(t, tab, &cur, group[0], where, i) {
					break
				}
			}
		}
	}
}

// playAnOffer opens the next group of offers with one it can take, checks
// the open group at size, and clicks the action; false when no group has
// one.
func playAnOffer(t *testing.T, tab context.Context, cur *layoutSize, size layoutSize, where string, i int) bool {
	t.Helper()
	pick, err := chromedp.Run(tab, chromedp.Evaluate[[]string](fmt.Sprintf(`(() => {
  const gs = [...document.querySelectorAll('#demo .offers details.offer-fold:not(.free-history)')];
  for (let j = 0; j < gs.length; j++) {
    const g = gs[(%d + j) %% gs.length], b = g.querySelector('button[data-testid=offer]:not([disabled])');
    if (b) return [g.dataset.testid, b.dataset.action];
  }
  return [];
})()`, i)))
	if err != nil {
		t.Fatal(err)
	}
	if len(pick) == 0 {
		return false
	}
	fold := `[data-testid="` + pick[0] + `"]`
	if *cur != size {
		viewport(t, tab, size)
		*cur = size
	}
	clickJS(t, tab, fold+" > summary")
	for _, f := range testkit.WaitFor(t, tab, waitBudget, "the open group "+fold, testkit.OpenFoldJS(fold), func(f []string) bool { return f != nil }) {
		t.Errorf("%s %s, %s open: %s", size.name, where, pick[0], f)
	}
	clickJS(t, tab, fold+` [data-action=`+strconv.Quote(pick[1])+`]`)
	return true
}

// clickJS clicks the element sel finds through the page's own click(), one
// round trip where a mouse click takes several (TestBrowserFreePlay clicks
// the offers with the mouse).
func clickJS(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector(`+strconv.Quote(sel)+`).click()`)); err != nil {
		t.Fatalf("clicking %s: %v", sel, err)
	}
}

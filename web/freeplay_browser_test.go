package web

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// Free play in a real Chromium: a student takes over gc-pause with fencing
// off by the keyboard (T), breaks it by hand with the offer buttons (htmx
// swaps each frame in and pushes its address), reloads the page, goes Back
// and Forward, and sees the stale write land each time; axe checks the
// free-play view. Then the finder finds the same break from the page.
//
//	FREEPLAY_SHOTS=dir go test -run TestBrowserFreePlay .   # also writes screenshots to dir
func TestBrowserFreePlay(t *testing.T) {
	axeJS, err := os.ReadFile("testdata/axe/axe.min.js")
	if err != nil {
		t.Fatalf("axe-core is vendored at testdata/axe/axe.min.js: %v", err)
	}
	sc := gcPause(t)
	srv := httptest.NewServer(newTestServer(t, DefaultConfig()))
	t.Cleanup(srv.Close)
	env := &browserEnv{browser: testkit.Chromium(t, browserBudget), base: srv.URL, sc: sc, posts: &postLog{}}
	b := env.newTab(t, true)
	b.open(false, 1, "en")
	b.waitFrame(false, 1, "en")

	b.bodyFocus()
	b.do(chromedp.KeyEvent("t"))
	b.waitJS("free play after T", `location.search.endsWith('&play=') && !!document.querySelector('#demo [data-testid="offers"]')`)

	p := demo.Place{Sc: sc, On: false, Step: 1}
	var addrs []string
	for i, line := range breakByHand {
		// The offers are folded by group: open the action's group, then click it.
		b.do(chromedp.Click(chromedp.CSS(`#demo details.offer-fold:has([data-action=` + strconv.Quote(line) + `]) > summary`)))
		b.do(chromedp.Click(chromedp.CSS(`#demo [data-testid="offer"][data-action=` + strconv.Quote(line) + `]`)))
		p = p.Then(mustParse(t, sc, line))
		b.waitFreeFrame(i+1, freeFrame(t, p))
		addrs = append(addrs, b.href())
	}
	if got := b.verdictKind(); got != "stale-write" {
		t.Fatalf("after breaking it by hand the verdict is %q, want stale-write", got)
	}
	b.checkAxe(axeJS, "free play, the stale write landed")
	if dir := os.Getenv("FREEPLAY_SHOTS"); dir != "" {
		b.shoot(filepath.Join(dir, "freeplay-1280x720.png"), 1280, 720, false)
		b.shoot(filepath.Join(dir, "freeplay-phone-360.png"), 360, 740, true)
		b.do(chromedp.EmulateViewport(1280, 720))
	}

	// Reload: the address alone brings the same frame back.
	b.do(chromedp.Reload())
	b.waitFreeFrame(len(breakByHand), freeFrame(t, p))
	if got := b.verdictKind(); got != "stale-write" {
		t.Fatalf("after a reload the verdict is %q, want stale-write", got)
	}
	// Back, then Forward, through the browser's own history.
	b.do(chromedp.NavigateBack())
	b.waitFreeFrame(len(breakByHand)-1, freeFrame(t, p.Back()))
	if got, want := b.href(), addrs[len(addrs)-2]; got != want {
		t.Fatalf("Back shows %q, want %q", got, want)
	}
	b.do(chromedp.NavigateForward())
	b.waitFreeFrame(len(breakByHand), freeFrame(t, p))
	if got := b.verdictKind(); got != "stale-write" {
		t.Fatalf("after Back and Forward the verdict is %q, want stale-write", got)
	}
	// ← undoes the last action; T leaves for the script where it began.
	b.bodyFocus()
	b.do(chromedp.KeyEvent(kb.ArrowLeft))
	b.waitFreeFrame(len(breakByHand)-1, freeFrame(t, p.Back()))
	b.bodyFocus()
	b.do(chromedp.KeyEvent("t"))
	b.waitFrame(false, 1, "en")

	// "Find a way to break this": htmx fills the box with the shortest
	// history the finder found, and its link plays it as free-play frames.
	b.click("find")
	b.waitJS("the finder's answer", `!!document.querySelector('#find-result [data-testid="find-result"][data-found="true"]')`)
	if dir := os.Getenv("FREEPLAY_SHOTS"); dir != "" {
		b.shoot(filepath.Join(dir, "finder-1280x720.png"), 1280, 720, false)
	}
	b.click("find-play")
	b.waitJS("the trace played as frames", `location.search.includes('&play=') && document.readyState === 'complete' &&
		document.querySelector('#demo [data-testid="verdict"]').dataset.verdict === 'stale-write'`)
}

// waitFreeFrame waits until the page shows free-play frame f, n actions
// in, at rest, with the address bar at its address (set after the paint),
// and checks its clock, its resource and its verdict against the model.
func (b *tab) waitFreeFrame(n int, f demo.Frame) {
	b.t.Helper()
	b.waitJS(fmt.Sprintf("free-play frame %d", n), fmt.Sprintf(`document.querySelectorAll('#demo .free-history li').length === %d &&
		!document.querySelector('.htmx-request, .htmx-added, .htmx-settling, .htmx-swapping') && document.readyState === 'complete' &&
		new URL(document.getElementById('share-link').value, location.href).href === location.href`, n))
	s := b.screen()
	if want := fmt.Sprintf("t=%d", f.Now); s.Now != want {
		b.t.Fatalf("free-play frame %d shows %s, want %s", n, s.Now, want)
	}
	if got, want := b.verdictKind(), f.Verdict().Kind.String(); got != want {
		b.t.Fatalf("free-play frame %d: verdict %q, want %q", n, got, want)
	}
	if !strings.Contains(s.Href, "&play=") {
		b.t.Fatalf("free-play frame %d at %q, which names no history", n, s.Href)
	}
}

func (b *tab) href() string {
	b.t.Helper()
	h, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		b.t.Fatal(err)
	}
	return h
}

func (b *tab) verdictKind() string {
	b.t.Helper()
	k, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('#demo [data-testid="verdict"]').dataset.verdict`))
	if err != nil {
		b.t.Fatal(err)
	}
	return k
}

// shoot writes a screenshot of the whole page at a width and height.
func (b *tab) shoot(file string, w, h int64, mobile bool) {
	b.t.Helper()
	if mobile {
		b.do(chromedp.EmulateViewport(w, h, chromedp.EmulateMobile))
	} else {
		b.do(chromedp.EmulateViewport(w, h))
	}
	b.waitJS("the layout at the new size", `document.readyState === 'complete'`)
	if err := os.WriteFile(file, b.fullScreenshot(), 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// Free play on a 360 px phone, where nothing hovers: every group of
// actions stands open (none waits folded behind its count), and each
// action that cannot happen now says why under its face, inside the
// screen's width, in both languages.
func TestFreePlayOnAPhone(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.Close)
	browser := testkit.Chromium(t, 2*time.Minute)
	tab := testkit.NewTab(t, browser, time.Minute)
	do(t, tab, chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile))
	for _, lang := range []string{"en", "ja"} {
		path := "/scenarios/gc-pause?fencing=on&step=3&lang=" + lang + "&play="
		do(t, tab, chromedp.Navigate(srv.URL+path))
		type read struct {
			Offers, Hidden, Disabled int
			Unsaid                   []string
		}
		r := testkit.WaitFor(t, tab, waitBudget, "the offers on "+path, `(() => {
  const bs = [...document.querySelectorAll('#demo .offer-fold:not(.free-history) button[data-testid=offer]')];
  if (!bs.length) return null;
  const out = {Offers: bs.length, Hidden: 0, Disabled: 0, Unsaid: []};
  for (const b of bs) {
    if (!b.checkVisibility()) out.Hidden++;
    if (!b.disabled) continue;
    out.Disabled++;
    const why = b.querySelector('[data-testid=offer-why]'), r = why && why.getBoundingClientRect();
    if (!why || !why.checkVisibility() || !why.textContent.trim() || r.right > innerWidth + 0.5 || r.left < -0.5) out.Unsaid.push(b.dataset.action);
  }
  return out;
})()`, func(r *read) bool { return r != nil })
		if r.Hidden > 0 {
			t.Errorf("%s: %d of %d actions are folded away", path, r.Hidden, r.Offers)
		}
		if r.Disabled == 0 {
			t.Errorf("%s: no action is disabled; the test needs a frame with one", path)
		}
		if len(r.Unsaid) > 0 {
			t.Errorf("%s: disabled actions whose reason is not shown on the screen: %v", path, r.Unsaid)
		}
	}
}

// At 1280x720 free play draws its diagram as large as the script does: in
// each store family's scenario of the most clients, taken over mid-script,
// the diagram's type is the size the script's frame there has, in both
// languages, and the frame still fits its first screen.
func TestFreePlayDiagramAsTheScripts(t *testing.T) {
	catalog := testkit.Catalog(t)
	s := newTestServer(t, DefaultConfig())
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.Close)
	browser := testkit.Chromium(t, 4*time.Minute)
	tab := testkit.NewTab(t, browser, 3*time.Minute)
	viewport(t, tab, normalSizes[0])
	read := func(path, ready string) *testkit.Layout {
		t.Helper()
		do(t, tab, chromedp.Navigate(srv.URL+path))
		return testkit.WaitFor(t, tab, waitBudget, "the layout of "+path, testkit.SettledJS(ready, testkit.LayoutJS(`['fold']`)), func(l *testkit.Layout) bool { return l != nil })
	}
	for _, sc := range widestOfEachFamily(catalog.Scenarios) {
		for _, lang := range []string{"en", "ja"} {
			here := views.Place{Place: demo.Place{Sc: sc, On: sc.Default, Step: (sc.Frames() + 1) / 2}, Lang: lang, View: views.PageView}
			script := read(here.URL(), testkit.FrameShownJS(here.Step, sc.Frames()))
			free := read(here.TakeOver().URL(), testkit.FreeFrameShownJS(0))
			for _, f := range free.Faults {
				t.Errorf("1280x720 %s: %s", here.TakeOver().URL(), f)
			}
			if free.MinText < script.MinText-0.25 {
				t.Errorf("1280x720 %s: free play draws the diagram's type at %.1f px, the script's frame at %.1f px", here.TakeOver().URL(), free.MinText, script.MinText)
			}
		}
	}
}

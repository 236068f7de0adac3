package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// A lecture's question on the projector: in presenter mode at 1280x720 and
// 1920x1080, in both languages and positions, the lecturer asks the room
// (A) and the projector shows the question itself beside the room's bars;
// Step reveals the model's answer. Both screens are one screen: the
// verdict, the move's narration, the room and the diagram (and the lesson
// on the last frame) on it, none over another nor over the sources, and
// the diagram's type at least 14 px. A follower on a 360 px phone sees at
// the top of the screen that a question waits, in a live region a screen
// reader reads out.
func TestPresenterRoom(t *testing.T) {
	catalog := testkit.Catalog(t)
	gc, ok := catalog.Get("gc-pause")
	if !ok {
		t.Fatal("scenario gc-pause is missing from scenarios.yaml")
	}
	s := newTestServer(t, DefaultConfig())
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.Close)
	browser := testkit.Chromium(t, 5*time.Minute)
	const budget = 30 * time.Second
	asked := gc.Frames() - 1 // the question's frame
	for _, size := range [][2]int64{{1280, 720}, {1920, 1080}} {
		for _, lang := range []string{"en", "ja"} {
			for _, on := range []bool{true, false} {
				where := fmt.Sprintf("%dx%d %s %s", size[0], size[1], lang, demo.OnOff(on))
				lect := testkit.NewTab(t, browser, 2*time.Minute)
				do(t, lect, chromedp.EmulateViewport(size[0], size[1]), chromedp.Navigate(srv.URL+views.FrameURL(gc, on, asked-1, lang)+"&present=1"))
				stepByScript(t, lect, asked, gc.Frames()) // the first click makes the run, and the room
				var fol context.Context
				if size[0] == 1280 {
					link := testkit.WaitFor(t, lect, budget, "the follow link", `(document.querySelector('[data-testid="follow-link"]') || {}).pathname || ''`, func(s string) bool { return s != "" })
					fol = testkit.NewTab(t, browser, 2*time.Minute)
					do(t, fol, chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile), chromedp.Navigate(srv.URL+link+"?lang="+lang))
					testkit.WaitFor(t, fol, budget, "the stream live", `document.getElementById('follow').dataset.state`, func(s string) bool { return s == "live" })
				}
				clickJS(t, lect, `#demo [data-testid="ask"]`)
				testkit.WaitFor(t, lect, budget, "the room open", `document.querySelector('[data-testid="room"]')?.dataset.open || ''`, func(s string) bool { return s == "true" })
				ask := gc.Asked(asked).Ask.In(lang)
				waitShown(t, lect, budget, `[data-testid="room-ask"]`, ask)
				presenterFits(t, lect, where+", the question open", asked, gc.Frames(), size[1], `[data-testid="room-ask"]`)
				shoot(t, lect, fmt.Sprintf("room-open-%d-%s-%s", size[0], lang, demo.OnOff(on)))
				if fol != nil {
					phoneSeesQuestion(t, fol, where, ask)
					shoot(t, fol, fmt.Sprintf("follower-waiting-360-%s-%s", lang, demo.OnOff(on)))
				}

				clickJS(t, lect, `#demo .controls [data-testid="step"]`)
				testkit.WaitFor(t, lect, budget, "the frame after the question", roomSettledJS(asked+1, gc.Frames()), func(ok bool) bool { return ok })
				testkit.WaitFor(t, lect, budget, "the reveal", `!!document.querySelector('[data-testid="room-result"] [data-testid="predict-answer"]')`, func(ok bool) bool { return ok })
				presenterFits(t, lect, where+", the answer revealed", asked+1, gc.Frames(), size[1], `[data-testid="room-result"] [data-testid="predict-answer"]`)
				shoot(t, lect, fmt.Sprintf("room-reveal-%d-%s-%s", size[0], lang, demo.OnOff(on)))
			}
		}
	}
}

// presenterFits checks the projector's one screen of frame k of n, with
// the room's part sel on it.
func presenterFits(t *testing.T, tab context.Context, where string, k, n int, h int64, sel string) {
	t.Helper()
	l := testkit.WaitFor(t, tab, waitBudget, "the layout of "+where, `(`+roomSettledJS(k, n)+` ? `+testkit.LayoutJS(`['fold', 'overlap', 'scroll', 'sideways']`)+` : null)`, func(l *testkit.Layout) bool { return l != nil })
	for _, f := range l.Faults {
		t.Errorf("%s: %s", where, f)
	}
	if l.MinText < 14 {
		t.Errorf("%s: the diagram's smallest text is drawn at %.1f px, under 14", where, l.MinText)
	}
	t.Logf("%s: the diagram's smallest text %.1f px", where, l.MinText)
	bottom, err := chromedp.Run(tab, chromedp.Evaluate[float64](`(() => { const e = document.querySelector('`+sel+`'); return e && e.checkVisibility() ? e.getBoundingClientRect().bottom : -1; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if bottom < 0 || bottom > float64(h)+0.5 {
		t.Errorf("%s: %s is not on the first screen (its bottom at %.0f px)", where, sel, bottom)
	}
}

// roomSettledJS holds when the page shows frame k of n, swapped in and
// settled but for the room's reading of its totals, always under way.
func roomSettledJS(k, n int) string {
	return `(` + testkit.FrameShownJS(k, n) + ` && ![...document.querySelectorAll('.htmx-request, .htmx-added, .htmx-settling, .htmx-swapping')].some(e => !e.closest('#poll')))`
}

// phoneSeesQuestion waits for the follower's phone to say that the
// lecturer's question (ask) waits: a notice whole at the top of the first
// screen, leading to the question, and the question in the live region a
// screen reader reads out.
func phoneSeesQuestion(t *testing.T, fol context.Context, where, ask string) {
	t.Helper()
	type notice struct {
		Top, Bottom float64
		Leads       bool
		Said        string
	}
	n := testkit.WaitFor(t, fol, 30*time.Second, "the question waiting on the phone", `(() => {
  const a = document.querySelector('[data-testid="question-waiting"]');
  if (!a || !a.checkVisibility()) return null;
  window.scrollTo(0, 0);
  const r = a.getBoundingClientRect(), to = document.querySelector(a.getAttribute('href'));
  return {Top: r.top, Bottom: r.bottom, Leads: !!to && !!to.closest('[data-testid="room-question"]'), Said: document.getElementById('announce').textContent.replace(/\s+/g, ' ')};
})()`, func(n *notice) bool { return n != nil })
	if n.Top > 120 || n.Bottom > 740 {
		t.Errorf("%s: on the phone the notice of the question stands at %.0f-%.0f px, not at the top of the first screen", where, n.Top, n.Bottom)
	}
	if !n.Leads {
		t.Errorf("%s: the notice does not lead to the question", where)
	}
	testkit.WaitFor(t, fol, 30*time.Second, "the question read out", `document.getElementById('announce').textContent.replace(/\s+/g, ' ')`, func(s string) bool { return strings.Contains(s, ask) })
}

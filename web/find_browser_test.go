package web

import (
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// findShown is what the finder's answer shows.
type findShown struct {
	Found   string `json:"found"`
	Depth   string `json:"depth"`
	Partial bool   `json:"partial"`
	Play    bool   `json:"play"`
}

const findShownJS = `(() => {
  const r = document.querySelector('#find-result [data-testid="find-result"]');
  return {found: r.dataset.found, depth: r.dataset.depth,
    partial: !!r.querySelector('[data-testid="find-partial"]'),
    play: !!r.querySelector('[data-testid="find-play"]')};
})()`

// Every scenario's written expectation of the finder (scenarios.yaml's
// expect:), met from the page in a real Chromium: on frame 1 of each
// scenario with a property, in both positions, a click on "Find a way to
// break this" answers with a way to break it of exactly the length written,
// with a link to play it, or with none within at least the depth written;
// and it calls the fix partial exactly where the switch is on and a way is
// expected. The server searches with the check command's budget, so a busy
// machine changes how long an answer takes, never what it says.
func TestBrowserFinderMeetsExpectations(t *testing.T) {
	cfg := DefaultConfig()
	cfg.FindStates, cfg.FindTime = 1_000_000, 10*time.Minute
	s := newTestServer(t, cfg)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	env := &browserEnv{browser: testkit.Chromium(t, 10*time.Minute), base: srv.URL, posts: &postLog{}}
	b := env.newTabFor(t, true, 9*time.Minute)
	for _, sc := range s.Catalog().Scenarios {
		for _, on := range []bool{false, true} {
			x := sc.Expect[0].Finder
			if on {
				x = sc.Expect[1].Finder
			}
			if x == nil {
				continue
			}
			name := testkit.Name(sc, on)
			b.do(chromedp.Navigate(srv.URL + views.FrameURL(sc, on, 1, "en")))
			b.waitJS(name+": the finder's button", `!!document.querySelector('[data-testid="find"]') && !!window.htmx`)
			b.click("find")
			b.waitJS(name+": the finder's answer", `!!document.querySelector('#find-result [data-testid="find-result"]')`)
			got, err := chromedp.Run(b.ctx, chromedp.Evaluate[findShown](findShownJS))
			if err != nil {
				t.Fatalf("%s: reading the finder's answer: %v", name, err)
			}
			depth, _ := strconv.Atoi(got.Depth)
			switch {
			case x.Found && (got.Found != "true" || depth != x.N || !got.Play):
				t.Errorf("%s: the page shows found=%s at depth %d (a link to play it: %v), want a violation in %d", name, got.Found, depth, got.Play, x.N)
			case !x.Found && (got.Found != "false" || depth < x.N):
				t.Errorf("%s: the page shows found=%s to depth %d, want none within %d", name, got.Found, depth, x.N)
			case got.Partial != (on && x.Found):
				t.Errorf("%s: the page calls the fix partial: %v, want %v", name, got.Partial, on && x.Found)
			}
		}
	}
}

// The finder's answer is on the first screen at 1280x720, where the
// visitor who asked for it looks: in the script and in free play, in both
// languages, its first line and "Play it as frames" stand inside 720 px.
func TestFinderAnswerOnFirstScreen(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.Close)
	browser := testkit.Chromium(t, 3*time.Minute)
	tab := testkit.NewTab(t, browser, 2*time.Minute)
	do(t, tab, chromedp.EmulateViewport(1280, 720))
	for _, lang := range []string{"en", "ja"} {
		for _, path := range []string{"/scenarios/gc-pause?fencing=off&step=1&lang=" + lang, "/scenarios/gc-pause?fencing=off&step=3&lang=" + lang + "&play="} {
			do(t, tab, chromedp.Navigate(srv.URL+path))
			testkit.WaitFor(t, tab, waitBudget, "htmx", `!!window.htmx`, func(ok bool) bool { return ok })
			clickJS(t, tab, `[data-testid="find"]`)
			at := testkit.WaitFor(t, tab, waitBudget, "the finder's answer on "+path, `(() => {
  const r = document.querySelector('#find-result [data-testid="find-result"]'), p = r && r.querySelector('[data-testid="find-play"]');
  if (!r || !p) return null;
  window.scrollTo(0, 0);
  return [r.getBoundingClientRect().top, p.getBoundingClientRect().bottom];
})()`, func(at []float64) bool { return at != nil })
			if at[0] < 0 || at[1] > 720 {
				t.Errorf("1280x720 %s: the finder's answer stands at %.0f px and its \"Play it as frames\" ends at %.0f px, not on the first screen of 720", path, at[0], at[1])
			}
		}
	}
}

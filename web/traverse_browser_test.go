package web

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/internal/testkit"
)

// The lecturer's browser Back and Forward move the room as Step and Back
// do: a follower, in a browser of their own, sees each frame the
// lecturer's history puts back on the projector, whether htmx puts it back
// or the page is loaded anew after the lecturer left it. Every wait is for
// what a screen shows.
func TestLecturerHistoryMovesTheRoom(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.Close)
	browser := testkit.Chromium(t, 3*time.Minute)
	const budget = 30 * time.Second
	index := `[data-testid="step-index"]`

	lect := testkit.NewTab(t, browser, 2*time.Minute)
	do(t, lect, chromedp.EmulateViewport(1280, 720), chromedp.Navigate(srv.URL+"/scenarios/gc-pause?fencing=on&step=1&lang=en"))
	waitShown(t, lect, budget, index, "1 / 7")
	for _, want := range []string{"2 / 7", "3 / 7", "4 / 7"} {
		testkit.WaitFor(t, lect, budget, "the Step button wired", `!!document.querySelector('#demo [data-testid="step"]') && !document.querySelector('#demo.htmx-settling')`, func(ok bool) bool { return ok })
		do(t, lect, chromedp.Click(chromedp.CSS(`#demo [data-testid="step"]`)))
		waitShown(t, lect, budget, index, want)
	}
	link := testkit.WaitFor(t, lect, budget, "the follow link", `(document.querySelector('[data-testid="follow-link"]') || {}).pathname || ''`, func(s string) bool { return s != "" })

	fol := testkit.NewTab(t, browser, 2*time.Minute) // a browser context of its own
	do(t, fol, chromedp.EmulateViewport(360, 740), chromedp.Navigate(srv.URL+link+"?lang=en"))
	testkit.WaitFor(t, fol, budget, "the stream live", `document.getElementById('follow').dataset.state`, func(s string) bool { return s == "live" })
	waitShown(t, fol, budget, index, "4 / 7")

	// The address bar follows each frame after its paint; Back waits for it.
	atStep := func(k string) {
		t.Helper()
		testkit.WaitFor(t, lect, budget, "the address of frame "+k, `new URLSearchParams(location.search).get('step')`, func(s string) bool { return s == k })
	}
	both := func(what, want string) {
		t.Helper()
		waitShown(t, lect, budget, index, want)
		waitShown(t, fol, budget, index, want)
		t.Logf("%s: the projector and the follower show %s", what, want)
	}
	atStep("4")
	do(t, lect, chromedp.NavigateBack())
	both("Back", "3 / 7")
	atStep("3")
	do(t, lect, chromedp.NavigateBack())
	both("Back again", "2 / 7")
	do(t, lect, chromedp.NavigateForward())
	both("Forward", "3 / 7")

	// The lecturer leaves for the scenarios' list and goes two pages back,
	// to a frame of the page left: the browser puts that page back (from
	// its cache, or loaded anew), not htmx alone. (history.go, as a page
	// put back from the browser's cache fires no load event for chromedp's
	// Back to wait for.)
	do(t, lect, chromedp.Navigate(srv.URL+"/scenarios?lang=en"))
	testkit.WaitFor(t, lect, budget, "the list", `location.pathname`, func(s string) bool { return s == "/scenarios" })
	testkit.Leave(t, lect, `history.go(-2)`)
	both("two pages Back from another page", "2 / 7")
	testkit.WaitFor(t, lect, budget, "htmx on the page put back", `!!window.htmx && document.readyState === 'complete'`, func(ok bool) bool { return ok })
	testkit.Leave(t, lect, `history.forward()`)
	both("Forward after that", "3 / 7")
}

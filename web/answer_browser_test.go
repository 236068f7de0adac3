package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/web/follow"
)

// A follower whose answer is refused (here: its page's ticket is gone, as
// when cookies were cleared) sees why in the banner, and its answer stays
// unmarked; the page loaded again hands it a ticket, and its answer
// counts.
func TestBrowserAnswerRefused(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.Close) // before srv.Close, which waits for open streams
	w := testkit.Post(t, s, "/scenarios/gc-pause/step", url.Values{"from": {"5"}, "fencing": {"on"}, "lang": {"en"}}, false)
	lecturer := runCookieOf(t, w)
	testkit.MustStatus(t, lecturePost(t, s, "/scenarios/gc-pause/ask", lecturer, url.Values{"from": {"6"}, "fencing": {"on"}, "lang": {"en"}}), http.StatusSeeOther)
	fid := follow.LectureID(strings.TrimPrefix(lecturer, runCookieName+"="))

	browser := testkit.Chromium(t, 2*time.Minute)
	tab := testkit.NewTab(t, browser, time.Minute)
	const budget = 30 * time.Second
	do(t, tab, chromedp.Navigate(srv.URL+"/follow/"+fid+"?lang=en"))
	testkit.WaitFor(t, tab, budget, "the stream live", `document.getElementById('follow').dataset.state`, func(s string) bool { return s == "live" })
	if _, err := chromedp.Call(tab, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	do(t, tab, chromedp.Click(chromedp.CSS(`[data-testid="answer-rejected"]`)))
	waitShown(t, tab, budget, `#follow-status`, "Your answer was not counted: answers are taken from the lecture's page, one per visitor. Reload the page and answer there.")
	if pressed := testkit.WaitFor(t, tab, budget, "the answer's mark", `document.querySelector('[data-testid="answer-rejected"]').getAttribute('aria-pressed') || ''`, func(string) bool { return true }); pressed == "true" {
		t.Fatal("a refused answer is marked as given")
	}
	do(t, tab, chromedp.Reload(), chromedp.Click(chromedp.CSS(`[data-testid="answer-rejected"]`)))
	testkit.WaitFor(t, tab, budget, "the answer marked", `document.querySelector('[data-testid="answer-rejected"]').getAttribute('aria-pressed')`, func(s string) bool { return s == "true" })
}

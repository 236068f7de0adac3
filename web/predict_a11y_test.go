package web

import (
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/internal/testkit"
)

// axe on a lecture's question (TestA11y has the reader's own, asked and
// marked): the projector with the room's bars, the question and the reveal
// on a follower's screen in both languages, and the projector's reveal.
func TestPredictA11y(t *testing.T) {
	axeJS, err := os.ReadFile("testdata/axe/axe.min.js")
	if err != nil {
		t.Fatalf("axe-core is vendored at testdata/axe/axe.min.js: %v", err)
	}
	srv := httptest.NewServer(newTestServer(t, DefaultConfig()))
	t.Cleanup(srv.Close)
	browser := testkit.Chromium(t, 3*time.Minute)
	env := &browserEnv{browser: browser, base: srv.URL, sc: gcPause(t)}
	const budget = 30 * time.Second

	lect := openTab(t, env, 2*time.Minute)
	lect.do(chromedp.EmulateViewport(1920, 1080), chromedp.Navigate(srv.URL+"/scenarios/gc-pause?fencing=on&step=5&lang=en&present=1"))
	waitShown(t, lect.ctx, budget, `[data-testid="step-index"]`, "5 / 7")
	lect.do(chromedp.Click(chromedp.CSS(`[data-testid="step"]`)))
	waitShown(t, lect.ctx, budget, `[data-testid="step-index"]`, "6 / 7")
	link := testkit.WaitFor(t, lect.ctx, budget, "the follow link", `(document.querySelector('[data-testid="follow-link"]') || {}).pathname || ''`, func(s string) bool { return s != "" })
	lect.do(chromedp.KeyEvent("a"))
	testkit.WaitFor(t, lect.ctx, budget, "the room's bars", `(document.querySelector('[data-testid="room"]') || {dataset: {}}).dataset.open`, func(s string) bool { return s == "true" })
	lect.checkAxe(axeJS, "the projector with the room's bars")

	phone := openTab(t, env, 2*time.Minute)
	// At 1280 px, as TestA11y checks every page: at 360 px axe finds the
	// diagram's sideways scroll (.tl-scroll) unreachable by keyboard on
	// every frame's page alike, a finding of its own outside the question.
	phone.do(chromedp.EmulateViewport(1280, 720))
	for _, lang := range []string{"en", "ja"} {
		phone.do(chromedp.Navigate(srv.URL + link + "?lang=" + lang))
		testkit.WaitFor(t, phone.ctx, budget, "the question on the follower's screen", `!!document.querySelector('[data-testid="room-question"]')`, func(ok bool) bool { return ok })
		phone.checkAxe(axeJS, "the question on a follower's screen, "+lang)
	}
	phone.do(chromedp.Click(chromedp.CSS(`[data-testid="answer-rejected"]`)))
	testkit.WaitFor(t, phone.ctx, budget, "the answer marked", `document.querySelector('[data-testid="answer-rejected"]').getAttribute('aria-pressed')`, func(s string) bool { return s == "true" })

	lect.do(chromedp.Click(chromedp.CSS(`.controls [data-testid="step"]`)))
	testkit.WaitFor(t, lect.ctx, budget, "the reveal on the projector", `(document.querySelector('[data-testid="predict-answer"]') || {dataset: {}}).dataset.value`, func(s string) bool { return s == "rejected" })
	lect.checkAxe(axeJS, "the projector's reveal")
	testkit.WaitFor(t, phone.ctx, budget, "the reveal on the follower's screen", `!!document.querySelector('[data-testid="room-result"]')`, func(ok bool) bool { return ok })
	phone.checkAxe(axeJS, "the reveal on a follower's screen, ja")
	phone.do(chromedp.Navigate(srv.URL + link + "?lang=en"))
	testkit.WaitFor(t, phone.ctx, budget, "the reveal on the follower's screen", `!!document.querySelector('[data-testid="room-result"]')`, func(ok bool) bool { return ok })
	phone.checkAxe(axeJS, "the reveal on a follower's screen, en")
}

package web

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// A workshop in a browser: the lecturer opens a room from the form; two
// learners (a 360 px phone in Japanese with a nickname, a 1280 px laptop
// without one) join by the board's link; one submits a break of gc-pause
// from their own run (the frame in the page, where their history stands),
// the other a fix from the lab; the board fills by its stream; the
// lecturer puts the break on the projector and the phone, following the
// room's projector, sees its verdict; then the lecturer asks the room a
// question, the room votes, the lecturer asks again after discussion, the
// room votes again, and Step reveals both votes side by side. axe finds
// nothing on the form, the board, a learner's challenges and a challenge. With
// PREDICT_SHOTS set, the board (1280x720 and 1920x1080, en and ja) and the
// phone are saved there to be looked at.
func TestRoomBrowser(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	srv := testkit.Serve(t, s)
	t.Cleanup(s.Close)
	browser := testkit.Chromium(t, 5*time.Minute)
	const budget = 60 * time.Second

	lect := testkit.NewTab(t, browser, 4*time.Minute)
	do(t, lect, chromedp.EmulateViewport(1280, 720), chromedp.Navigate(srv.URL+"/scenarios?lang=en"))
	testkit.WaitFor(t, lect, budget, "the link to open a room", `!!document.querySelector('[data-testid="rooms-link"]')`, func(ok bool) bool { return ok })
	do(t, lect, chromedp.Click(chromedp.CSS(`[data-testid="rooms-link"]`)))
	testkit.WaitFor(t, lect, budget, "the form that opens a room", `!!document.querySelector('[data-testid="room-open"]')`, func(ok bool) bool { return ok })
	axeJS, err := os.ReadFile("testdata/axe/axe.min.js")
	if err != nil {
		t.Fatal(err)
	}
	(&tab{t: t, ctx: lect}).checkAxe(axeJS, "the form that opens a room")
	do(t, lect,
		chromedp.Click(chromedp.CSS(`[data-testid="offer-break:gc-pause:off"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="offer-fix:gc-pause"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="room-open-submit"]`)))
	learn := testkit.WaitFor(t, lect, budget, "the board's learners' link", `(document.querySelector('[data-testid="room-learn"]') || {}).textContent || ''`, func(s string) bool { return s != "" })
	board := testkit.WaitFor(t, lect, budget, "the board's address", `location.href`, func(s string) bool { return strings.Contains(s, "/lead/") })
	if strings.Contains(learn, "/lead/") {
		t.Fatalf("the learners' link %q carries the lecturer's secret", learn)
	}

	phone := testkit.NewTab(t, browser, 4*time.Minute)
	do(t, phone, chromedp.EmulateViewport(360, 740), chromedp.Navigate(learn+"?lang=ja"))
	testkit.WaitFor(t, phone, budget, "the join form", `!!document.querySelector('[data-testid="room-nick"]')`, func(ok bool) bool { return ok })
	do(t, phone, chromedp.SendKeys(chromedp.CSS(`[data-testid="room-nick"]`), "あおい"), chromedp.Click(chromedp.CSS(`[data-testid="room-join"]`)))
	laptop := testkit.NewTab(t, browser, 4*time.Minute)
	do(t, laptop, chromedp.EmulateViewport(1280, 720), chromedp.Navigate(learn+"?lang=en"))
	testkit.WaitFor(t, laptop, budget, "the join form", `!!document.querySelector('[data-testid="room-join"]')`, func(ok bool) bool { return ok })
	do(t, laptop, chromedp.Click(chromedp.CSS(`[data-testid="room-join"]`)))
	waitShown(t, lect, budget, `[data-testid="room-joined"]`, "2")

	// The phone's break: their run (the frame in the page) stands where
	// their history broke the lock; room.js sends that address.
	sc := gcPause(t)
	brk, _ := shortestBreak(t, sc, len(mustTrace(t, sc)))
	testkit.WaitFor(t, phone, budget, "the challenges", `!!document.querySelector('[data-testid="start-0"]')`, func(ok bool) bool { return ok })
	shoot(t, phone, "room-learner-360-ja")
	do(t, phone, chromedp.Click(chromedp.CSS(`[data-testid="start-0"]`)))
	testkit.WaitFor(t, phone, budget, "the learner's run in the page", `!!document.querySelector('#room-frame')`, func(ok bool) bool { return ok })
	do(t, phone, chromedp.Evaluate[chromedp.Void](`document.getElementById('room-frame').src = `+jsString(strings.Replace(strings.Replace(brk, "/scenarios/", "/embed/", 1), "lang=en", "lang=ja", 1))))
	testkit.WaitFor(t, phone, budget, "the run at the break", `(() => { try { return document.getElementById('room-frame').contentWindow.location.search } catch (e) { return '' } })()`, func(s string) bool { return strings.Contains(s, "play=") })
	do(t, phone, chromedp.Click(chromedp.CSS(`[data-testid="room-submit"]`)))
	testkit.WaitFor(t, phone, budget, "the judge's answer", `(document.querySelector('[data-testid="room-res"]') || {dataset: {}}).dataset.solved`, func(s string) bool { return s == "true" })
	shoot(t, phone, "room-learner-360-ja-broke")
	do(t, phone, chromedp.Navigate(learn+"?lang=ja"))
	testkit.WaitFor(t, phone, budget, "the challenges", `!!document.querySelector('[data-testid="start-0"]')`, func(ok bool) bool { return ok })

	// The laptop's fix: a build the lab's tries say holds.
	var holds string
	for _, try := range sc.Lab.Tries {
		if try.Expect == "holds" {
			holds = views.LabURL(sc.ID, try.Build.String(), "en", false)
		}
	}
	testkit.WaitFor(t, laptop, budget, "the challenges", `!!document.querySelector('[data-testid="start-1"]')`, func(ok bool) bool { return ok })
	do(t, laptop, chromedp.Click(chromedp.CSS(`[data-testid="start-1"]`)))
	testkit.WaitFor(t, laptop, budget, "the lab in the page", `!!document.querySelector('#room-frame')`, func(ok bool) bool { return ok })
	do(t, laptop, chromedp.Evaluate[chromedp.Void](`document.getElementById('room-frame').src = `+jsString(holds)))
	testkit.WaitFor(t, laptop, budget, "the lab with the build", `(() => { try { return document.getElementById('room-frame').contentWindow.location.search } catch (e) { return '' } })()`, func(s string) bool { return strings.Contains(s, "build=") })
	do(t, laptop, chromedp.Click(chromedp.CSS(`[data-testid="room-submit"]`)))
	testkit.WaitFor(t, laptop, 2*budget, "the judge's answer on the fix", `(document.querySelector('[data-testid="room-res"]') || {dataset: {}}).dataset.solved`, func(s string) bool { return s == "true" })

	// The board fills by its stream, without a reload.
	waitShown(t, lect, budget, `[data-testid="room-subs"]`, "2")
	waitShown(t, lect, budget, `[data-testid="room-row-0"] [data-testid="solved"]`, "1")
	waitShown(t, lect, budget, `[data-testid="room-row-0"] [data-testid="atpar"]`, "1")
	waitShown(t, lect, budget, `[data-testid="room-row-1"] [data-testid="solved"]`, "1")
	shoot(t, lect, "room-board-1280x720-en")
	(&tab{t: t, ctx: lect}).checkAxe(axeJS, "the board")
	(&tab{t: t, ctx: phone}).checkAxe(axeJS, "a learner's challenges on a phone")
	(&tab{t: t, ctx: laptop}).checkAxe(axeJS, "a learner's challenge")
	do(t, lect, chromedp.EmulateViewport(1920, 1080))
	shoot(t, lect, "room-board-1920x1080-en")
	do(t, lect, chromedp.Navigate(strings.Replace(board, "lang=en", "lang=ja", 1)))
	waitShown(t, lect, budget, `[data-testid="room-subs"]`, "2")
	shoot(t, lect, "room-board-1920x1080-ja")
	do(t, lect, chromedp.EmulateViewport(1280, 720))
	shoot(t, lect, "room-board-1280x720-ja")

	// The lecturer shows the phone's break, named by its nickname; the
	// phone follows the room's projector and sees its verdict.
	show := testkit.WaitFor(t, lect, budget, "the phone's break to show, by its nickname",
		`([...document.querySelectorAll('[data-testid^="show-"]')].find(b => b.parentElement.textContent.includes('あおい')) || {dataset: {}}).dataset.testid || ''`,
		func(s string) bool { return s != "" })
	do(t, phone, chromedp.Navigate(learn+"?lang=ja"))
	watch := testkit.WaitFor(t, phone, budget, "the projector's link", `(document.querySelector('[data-testid="room-watch"]') || {}).href || ''`, func(s string) bool { return s != "" })
	do(t, lect, chromedp.Click(chromedp.CSS(`[data-testid="`+show+`"]`)))
	testkit.WaitFor(t, lect, budget, "the projector at the break", `(document.querySelector('[data-testid="verdict"]') || {dataset: {}}).dataset.verdict`, func(s string) bool { return s == "stale-write" })
	do(t, phone, chromedp.Navigate(watch))
	testkit.WaitFor(t, phone, budget, "the phone following the break", `(document.querySelector('[data-testid="verdict"]') || {dataset: {}}).dataset.verdict`, func(s string) bool { return s == "stale-write" })

	// A prediction voted twice: the projector goes to the question's
	// frame, the room answers, discusses, answers again, and Step shows
	// both votes.
	do(t, lect, chromedp.Navigate(srv.URL+"/scenarios/gc-pause?fencing=on&step=5&lang=en&present=1"))
	waitShown(t, lect, budget, `[data-testid="step-index"]`, "5 / 7")
	do(t, lect, chromedp.Click(chromedp.CSS(`[data-testid="step"]`)))
	waitShown(t, lect, budget, `[data-testid="step-index"]`, "6 / 7")
	waitShown(t, phone, budget, `[data-testid="step-index"]`, "6 / 7")
	do(t, lect, chromedp.KeyEvent("a"))
	testkit.WaitFor(t, phone, budget, "the question on the phone", `!!document.querySelector('[data-testid="answer-accepted"]')`, func(ok bool) bool { return ok })
	do(t, phone, chromedp.Click(chromedp.CSS(`[data-testid="answer-accepted"]`)))
	testkit.WaitFor(t, lect, budget, "the first vote on the projector", `(document.querySelector('[data-testid="bar-accepted"]') || {dataset: {}}).dataset.count`, func(s string) bool { return s == "1" })
	do(t, lect, chromedp.Click(chromedp.CSS(`[data-testid="ask-again"]`)))
	testkit.WaitFor(t, phone, budget, "the second vote on the phone", `!!document.querySelector('[data-testid="poll-again"]')`, func(ok bool) bool { return ok })
	do(t, phone, chromedp.Click(chromedp.CSS(`[data-testid="answer-rejected"]`)))
	testkit.WaitFor(t, lect, budget, "both votes on the projector", `[...document.querySelectorAll('#poll [data-testid="first-count"]')].map(e => e.dataset.count).join(',') + '/' + ((document.querySelector('#poll [data-testid="bar-rejected"]') || {dataset: {}}).dataset.count)`,
		func(s string) bool { return s == "1,0,0/1" })
	shoot(t, lect, "room-second-vote-1280x720")
	do(t, lect, chromedp.Click(chromedp.CSS(`[data-testid="step"]`)))
	got := testkit.WaitFor(t, phone, budget, "the reveal with both votes", `((document.querySelector('[data-testid="room-result"]') || {}).textContent || '').replace(/\s+/g, ' ')`,
		func(s string) bool { return strings.Contains(s, "1回目") || strings.Contains(s, "1 回目") })
	if !strings.Contains(got, "2 回目") {
		t.Fatalf("the reveal on the phone shows %q, without the second vote", got)
	}
	shoot(t, phone, "room-reveal-360-ja")
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

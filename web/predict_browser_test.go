package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// The question in a browser. A lecture on two replicas behind a round-robin
// balancer that share a real redis-server: the lecturer presses A on the
// question's frame, 20 followers answer (five in browser tabs, fifteen as
// plain clients with streams and cookies of their own, all through the
// balancer, so their answers land on both replicas), the lecturer's page
// shows the totals, and the Step reveals the model's answer on every
// follower's screen. Then a reader alone, with and without JavaScript.
// Every wait is for what the screen shows, never a sleep.
func TestPredictBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server and a browser: not with -short")
	}
	rd := realserver.StartRedis(t, "predict")
	cfg := DefaultConfig()
	cfg.FollowRedis = "redis://" + rd.Addr() + "/0"
	a, b := newTestServer(t, cfg), newTestServer(t, cfg)
	lb := newRoundRobin(t, a, b)
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	browser := testkit.Chromium(t, 4*time.Minute)
	const budget = 30 * time.Second

	t.Run("lecture", func(t *testing.T) {
		lect := testkit.NewTab(t, browser, 3*time.Minute)
		do(t, lect, chromedp.EmulateViewport(1920, 1080), chromedp.Navigate(lb.URL+"/scenarios/gc-pause?fencing=on&step=5&lang=en&present=1"))
		waitShown(t, lect, budget, `[data-testid="step-index"]`, "5 / 7")
		do(t, lect, chromedp.Click(chromedp.CSS(`[data-testid="step"]`)))
		waitShown(t, lect, budget, `[data-testid="step-index"]`, "6 / 7")
		link := testkit.WaitFor(t, lect, budget, "the follow link", `(document.querySelector('[data-testid="follow-link"]') || {}).pathname || ''`, func(s string) bool { return s != "" })

		// Five followers in tabs (two in Japanese), fifteen as clients.
		var tabs []context.Context
		for i := range 5 {
			ctx := testkit.NewTab(t, browser, 3*time.Minute)
			lang := map[bool]string{true: "ja", false: "en"}[i < 2]
			do(t, ctx, chromedp.EmulateViewport(360, 740), chromedp.Navigate(lb.URL+link+"?lang="+lang))
			waitShown(t, ctx, budget, `[data-testid="step-index"]`, "6 / 7")
			testkit.WaitFor(t, ctx, budget, "the stream live", `document.getElementById('follow').dataset.state`, func(s string) bool { return s == "live" })
			tabs = append(tabs, ctx)
		}
		var clients []*roomClient
		for range 15 {
			clients = append(clients, newRoomClient(t, lb.URL, link))
		}

		do(t, lect, chromedp.KeyEvent("a"))
		testkit.WaitFor(t, lect, budget, "the room's panel", `(document.querySelector('[data-testid="room"]') || {dataset: {}}).dataset.open`, func(s string) bool { return s == "true" })

		// 12 say rejected (right with fencing on), 5 accepted, 3 skipped.
		choice := func(i int) string {
			switch {
			case i < 12:
				return "rejected"
			case i < 17:
				return "accepted"
			}
			return "write-skipped"
		}
		for i, ctx := range tabs {
			sel := `[data-testid="answer-` + choice(i) + `"]`
			testkit.WaitFor(t, ctx, budget, "the question on a follower's phone", `!!document.querySelector('`+sel+`')`, func(ok bool) bool { return ok })
			do(t, ctx, chromedp.Click(chromedp.CSS(sel)))
			testkit.WaitFor(t, ctx, budget, "the answer marked", `document.querySelector('`+sel+`').getAttribute('aria-pressed')`, func(s string) bool { return s == "true" })
		}
		for i, c := range clients {
			c.answer(t, choice(i+len(tabs)))
		}

		total := testkit.WaitFor(t, lect, budget, "20 answers on the lecturer's screen", `[...document.querySelectorAll('[data-testid^="bar-"]')].map(b => b.dataset.testid + '=' + b.dataset.count).join(' ')`,
			func(s string) bool { return s == "bar-accepted=5 bar-rejected=12 bar-write-skipped=3" })
		t.Logf("the lecturer's bars: %s", total)
		waitShown(t, lect, budget, `[data-testid="room-total"]`, "20 answered")
		shoot(t, lect, "lecture-open-1920")

		do(t, lect, chromedp.Click(chromedp.CSS(`.controls [data-testid="step"]`)))
		waitShown(t, lect, budget, `[data-testid="step-index"]`, "7 / 7")
		testkit.WaitFor(t, lect, budget, "the reveal on the projector", `(document.querySelector('[data-testid="predict-answer"]') || {dataset: {}}).dataset.value`, func(s string) bool { return s == "rejected" })
		shoot(t, lect, "lecture-reveal-1920")
		for i, ctx := range tabs {
			testkit.WaitFor(t, ctx, budget, fmt.Sprintf("the reveal on follower %d", i), `(document.querySelector('[data-testid="predict-answer"]') || {dataset: {}}).dataset.value`, func(s string) bool { return s == "rejected" })
			want := map[bool]string{true: "12 人 (60%)", false: "12 (60%)"}[i < 2]
			waitShown(t, ctx, budget, `[data-testid="bar-rejected"] .bar-count`, want)
		}
		shoot(t, tabs[0], "follower-reveal-360-ja")
		for _, c := range clients {
			c.waitReveal(t)
		}
	})

	t.Run("alone-js", func(t *testing.T) {
		ctx := testkit.NewTab(t, browser, time.Minute)
		do(t, ctx, chromedp.EmulateViewport(1280, 720), chromedp.Navigate(lb.URL+"/scenarios/gc-pause?fencing=off&step=6&lang=ja"))
		testkit.WaitFor(t, ctx, budget, "htmx", `!!window.htmx`, func(ok bool) bool { return ok })
		do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="predict"] summary`)), chromedp.Click(chromedp.CSS(`[data-testid="guess-rejected"]`)))
		waitShown(t, ctx, budget, `[data-testid="predict-mark"]`, "不正解 ✗")
		testkit.WaitFor(t, ctx, budget, "the marked frame's address", `location.search`, func(s string) bool { return strings.Contains(s, "step=7") && strings.Contains(s, "guess=rejected") })
		shoot(t, ctx, "alone-wrong-1280-ja")
	})

	t.Run("alone-no-javascript", func(t *testing.T) {
		ctx := testkit.NewTab(t, browser, time.Minute)
		if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		do(t, ctx, chromedp.Navigate(lb.URL+"/scenarios/gc-pause?fencing=on&step=6&lang=en"), chromedp.Click(chromedp.CSS(`[data-testid="predict"] summary`)))
		if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="guess-rejected"]`))); err != nil {
			t.Fatal(err)
		}
		waitShown(t, ctx, budget, `[data-testid="predict-mark"]`, "Right ✓")
		waitShown(t, ctx, budget, `[data-testid="step-index"]`, "7 / 7")
	})
}

func do(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// waitShown waits until the element sel holds want, its white space
// collapsed.
func waitShown(t *testing.T, ctx context.Context, budget time.Duration, sel, want string) {
	t.Helper()
	testkit.WaitFor(t, ctx, budget, fmt.Sprintf("%s to say %q", sel, want),
		`((document.querySelector('`+sel+`') || {}).textContent || '').replace(/\s+/g, ' ').trim()`, func(s string) bool { return s == want })
}

// shoot saves a screenshot of the tab under $PREDICT_SHOTS, when set: for
// a person to look at, never compared.
func shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("PREDICT_SHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// roomClient is a follower without a browser: its own cookies, its own
// stream, through the balancer.
type roomClient struct {
	base, link string
	http       *http.Client
	stream     *testkit.Stream
	poll       string // the question's id, from the event that asked it
}

func newRoomClient(t *testing.T, base, link string) *roomClient {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &roomClient{base: base, link: link, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	c.stream = testkit.OpenStream(t, c.http, base+link+"/events?lang=en")
	c.stream.Next(t, 10*time.Second) // the frame as it stands
	return c
}

// answer waits for the event that asks the question and answers it.
func (c *roomClient) answer(t *testing.T, option string) {
	t.Helper()
	for c.poll == "" {
		doc := testkit.Parse(t, []byte(c.stream.Next(t, 10*time.Second).Data))
		c.poll = doc.Find(`[data-testid="room-question"]`).AttrOr("data-poll", "")
	}
	resp, err := c.http.PostForm(c.base+c.link+"/answer", url.Values{"q": {c.poll}, "option": {option}, "lang": {"en"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("an answer came back %s, want 303", resp.Status)
	}
}

// waitReveal waits for the event that shows the model's answer.
func (c *roomClient) waitReveal(t *testing.T) {
	t.Helper()
	for {
		doc := testkit.Parse(t, []byte(c.stream.Next(t, 10*time.Second).Data))
		if v := doc.Find(`[data-testid="predict-answer"]`).AttrOr("data-value", ""); v != "" {
			if v != "rejected" {
				t.Fatalf("a client follower was shown %q, want rejected", v)
			}
			return
		}
	}
}

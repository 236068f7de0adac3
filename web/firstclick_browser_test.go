package web

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/internal/testkit"
)

// A page's first click paints its frame before the server answers it: the
// frame fetched without ids is painted at once, and the answer, when it
// comes, brings the run key into the forms on screen, so the next click
// moves the same run; the frames one click away are then fetched again
// with the run's ids, so the second click is painted before its answer
// too. The server holds every post until the test lets it go, so a click
// painted only from its answer would not show its frame in time.
func TestBrowserFirstClickPrefetched(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	var posts postLog
	hold := make(chan struct{}, 2) // a token lets one post through
	srv := httptest.NewServer(posts.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			<-hold
		}
		s.ServeHTTP(w, r)
	})))
	release := func() { hold <- struct{}{} }
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(hold) })
	t.Cleanup(s.follow.Close)
	env := &browserEnv{browser: testkit.Chromium(t, browserBudget), base: srv.URL, sc: gcPause(t)}
	b := openTab(t, env, tabBudget)
	b.do(chromedp.Navigate(srv.URL + frameURL(true, 1, "en")))
	waitShown(t, b.ctx, waitBudget, `[data-testid="step-index"]`, "1 / 7")
	testkit.WaitFor(t, b.ctx, waitBudget, "the frames one click away", `document.documentElement.dataset.prefetch || ''`, func(s string) bool { return s == "idle" })

	b.click("step")
	waitShown(t, b.ctx, waitBudget, `[data-testid="step-index"]`, "2 / 7")
	waitPosts := func(what string, n int) {
		t.Helper()
		testkit.WaitFor(t, b.ctx, waitBudget, what, `1`, func(int) bool { return posts.len() >= n })
	}
	waitPosts("the step's post, held", 1)
	if idx := testkit.WaitFor(t, b.ctx, waitBudget, "the index", `document.querySelector('[data-testid="step-index"]').textContent.trim()`, func(string) bool { return true }); idx != "2 / 7" {
		t.Fatalf("with the step's post held the page shows %q, want 2 / 7", idx)
	}

	release()
	runKey := regexp.MustCompile(`^[0-9a-f]{32}$`)
	run := testkit.WaitFor(t, b.ctx, waitBudget, "the run key in the forms", `(document.querySelector('#demo input[name="run"]') || {}).value || ''`, func(s string) bool { return runKey.MatchString(s) })
	testkit.WaitFor(t, b.ctx, waitBudget, "the follow link", `(document.querySelector('[data-testid="follow-link"]') || {}).pathname || ''`, func(s string) bool { return s != "" })
	testkit.WaitFor(t, b.ctx, waitBudget, "the frames one click away, with the run's ids", `document.documentElement.dataset.prefetch === 'idle'`, func(ok bool) bool { return ok })
	b.click("step")
	waitPosts("the second step's post, held", 2)
	waitShown(t, b.ctx, waitBudget, `[data-testid="step-index"]`, "3 / 7")
	release()
	got := posts.since(0)
	if got[0].Get("run") != "" || got[1].Get("run") != run {
		t.Errorf("the posts' run keys are %q then %q, want none then the first answer's %q", got[0].Get("run"), got[1].Get("run"), run)
	}

	// A first click onto a frame that asks a question: its answer brings
	// what a lecture adds (the button that asks the room, the room's
	// answers), which comes in beside the frame painted at the click. The
	// diagram drawn then stays, so its motion does not play twice.
	b = openTab(t, env, tabBudget)
	b.do(chromedp.Navigate(srv.URL + frameURL(true, 5, "en")))
	waitShown(t, b.ctx, waitBudget, `[data-testid="step-index"]`, "5 / 7")
	testkit.WaitFor(t, b.ctx, waitBudget, "the frames one click away", `document.documentElement.dataset.prefetch || ''`, func(s string) bool { return s == "idle" })
	b.click("step")
	waitShown(t, b.ctx, waitBudget, `[data-testid="step-index"]`, "6 / 7")
	waitPosts("the step's post, held", 3)
	const lecture = `!!document.querySelector('#demo [data-testid="ask"]') || !!document.querySelector('#demo [data-testid="poll"]')`
	if shown := testkit.WaitFor(t, b.ctx, waitBudget, "the frame", lecture, func(bool) bool { return true }); shown {
		t.Fatal("before its answer the frame shows a lecture's parts, which need a run")
	}
	b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#demo [data-testid="timeline"]').dataset.painted = 'at the click'`))
	release()
	testkit.WaitFor(t, b.ctx, waitBudget, "the button that asks the room and the room's answers",
		`!!document.querySelector('#demo [data-testid="ask"]') && !!document.querySelector('#demo [data-testid="poll"]') && !document.querySelector('.htmx-settling, .htmx-added')`, func(ok bool) bool { return ok })
	if drawn := testkit.WaitFor(t, b.ctx, waitBudget, "the diagram", `document.querySelector('#demo [data-testid="timeline"]').dataset.painted || ''`, func(string) bool { return true }); drawn != "at the click" {
		t.Error("the first answer drew the diagram again: the step's motion played twice")
	}
}

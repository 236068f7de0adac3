package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/web/follow"
)

// A visitor's walk by the page's own controls: each click submits the form
// the page wrote (views.Place.Hidden, to Place.Action), and act reads it back
// (views.ReadPlace). Nothing here spells a form out by hand, so a change on
// either side that breaks the other shows.
func TestClickThePagesOwnForms(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, DefaultConfig())
	for _, htmx := range []bool{true, false} {
		doc := testkit.Parse(t, testkit.Get(t, s, gcPauseURL(true, 1, "ja")+"&present=1").Body.Bytes())
		for k := 2; k <= sc.Frames(); k++ {
			w := testkit.Click(t, s, doc, "step", htmx)
			if !htmx {
				testkit.MustStatus(t, w, http.StatusSeeOther)
				w = testkit.Get(t, s, w.Header().Get("Location"))
			}
			testkit.MustStatus(t, w, http.StatusOK)
			doc = testkit.Parse(t, w.Body.Bytes())
			mustShow(t, doc, testkit.Frame(t, sc, true, k), "ja")
			// The five controls, and where a question is asked its answers
			// and, for a run's lecture, the button that asks the room.
			want := 5
			if sc.Asked(k) != nil {
				want = 6
				if htmx { // the fragment carries the run; the page after a redirect, fetched without the cookie, does not
					want = 7
				}
			}
			if got := doc.Find(`#demo form input[name="present"]`).Length(); got != want {
				t.Fatalf("htmx=%v frame %d: %d forms carry presenter mode, want all %d", htmx, k, got, want)
			}
		}
		w := testkit.Click(t, s, doc, sc.Switch, htmx)
		if !htmx {
			w = testkit.Get(t, s, w.Header().Get("Location"))
		}
		mustShow(t, testkit.Parse(t, w.Body.Bytes()), testkit.Frame(t, sc, false, sc.Frames()), "ja")
	}
}

// Without JavaScript, a double click's second press that lands on the page
// its first press loaded (and so names the new frame) is an echo: within a
// double click's gap, by the same control, the run stays where the first
// press took it. Later, or by another control, a press moves on.
func TestNoJSDoubleClickEcho(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	t0 := time.Unix(1000, 0)
	var at time.Duration
	s.now = func() time.Time { return t0.Add(at) }
	run := ""
	press := func(action string, from int, after time.Duration) string {
		t.Helper()
		at = after
		w := click(t, s, action, place{run: run, from: from, on: true, lang: "en"}, false)
		testkit.MustStatus(t, w, http.StatusSeeOther)
		run = strings.TrimPrefix(runCookieOf(t, w), runCookieName+"=")
		u, err := url.Parse(w.Header().Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		return u.Query().Get("step")
	}
	if got := press("step", 2, 0); got != "3" {
		t.Fatalf("the first press from frame 2 leads to step %s, want 3", got)
	}
	if got := press("step", 3, 90*time.Millisecond); got != "3" {
		t.Errorf("the second press, 90 ms later on the page the first loaded, leads to step %s, want 3", got)
	}
	if got := press("back", 3, 180*time.Millisecond); got != "2" {
		t.Errorf("Back at once on that page leads to step %s, want 2", got)
	}
	if got := press("step", 2, 2*time.Second); got != "3" {
		t.Errorf("a press a while later leads to step %s, want 3", got)
	}
}

// The lecturer's browser Back or Forward (prefetch.js) posts the frame put
// back on screen: the run moves there, as a click moves it, and its
// followers with it; a visitor with no run has nothing to move, and no run
// is made for them.
func TestTraverseMovesTheRun(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	w := click(t, s, "step", place{from: 3, on: true, lang: "en"}, true)
	testkit.MustStatus(t, w, http.StatusOK)
	run := strings.TrimPrefix(runCookieOf(t, w), runCookieName+"=")
	fid := follow.LectureID(run)
	at := func() demo.Place {
		lr, ok := s.runs.cache.Peek(fid)
		if !ok {
			t.Fatal("the run is gone")
		}
		lr.mu.Lock()
		defer lr.mu.Unlock()
		return lr.at
	}
	if got := at(); got.Step != 4 {
		t.Fatalf("after Step from frame 3 the run is at frame %d, want 4", got.Step)
	}
	w = click(t, s, "traverse", place{run: run, from: 3, on: true, lang: "en"}, true)
	testkit.MustStatus(t, w, http.StatusNoContent)
	if got := at(); got.Step != 3 || !got.On {
		t.Errorf("after Back to frame 3 the run is at frame %d (fencing %v), want frame 3, fencing on", got.Step, got.On)
	}
	runs := s.runs.Len()
	w = click(t, s, "traverse", place{from: 5, on: true, lang: "en"}, true)
	testkit.MustStatus(t, w, http.StatusNoContent)
	if got := s.runs.Len(); got != runs {
		t.Errorf("a traversal with no run made one: %d runs, want %d", got, runs)
	}
}

// Behind a balancer the two presses of a double click without JavaScript
// may reach two replicas: the second, on the page the first loaded and
// within a double click's gap, is still the first's echo, told by the
// lecture's latest place and version in the shared Redis. A press a while
// later, and Back at once on the replica that moved the run, still move.
func TestNoJSDoubleClickEchoAcrossReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server: not with -short")
	}
	rd := realserver.StartRedis(t, "echo")
	cfg := DefaultConfig()
	cfg.FollowRedis = "redis://" + rd.Addr() + "/0"
	t0 := time.Unix(1_800_000_000, 0)
	var at time.Duration
	clock := func() time.Time { return t0.Add(at) }
	a, b := newTestServer(t, cfg), newTestServer(t, cfg)
	for _, s := range []*Server{a, b} {
		s.now, s.follow.Clock = clock, clock
		t.Cleanup(s.Close)
	}
	run := ""
	press := func(s *Server, action string, from int, after time.Duration) string {
		t.Helper()
		at = after
		w := click(t, s, action, place{run: run, from: from, on: true, lang: "en"}, false)
		testkit.MustStatus(t, w, http.StatusSeeOther)
		run = strings.TrimPrefix(runCookieOf(t, w), runCookieName+"=")
		u, err := url.Parse(w.Header().Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		return u.Query().Get("step")
	}
	if got := press(a, "step", 2, 0); got != "3" {
		t.Fatalf("the first press from frame 2, on replica a, leads to step %s, want 3", got)
	}
	if got := press(b, "step", 3, 150*time.Millisecond); got != "3" {
		t.Errorf("the second press, 150 ms later on replica b from the page the first loaded, leads to step %s, want 3", got)
	}
	if got := press(b, "step", 3, 2*time.Second); got != "4" {
		t.Errorf("a press on replica b a while later leads to step %s, want 4", got)
	}
	if got := press(b, "back", 4, 2*time.Second+180*time.Millisecond); got != "3" {
		t.Errorf("Back at once on the replica that moved the run leads to step %s, want 3", got)
	}
}

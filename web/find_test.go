package web

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// "Find a way to break this" from gc-pause's first frame: with fencing off
// the finder finds the stale write in the chapter's seven actions or fewer,
// and its link plays it as free-play frames that end in that verdict; with
// fencing on it finds none within its depth, and says how far it looked.
func TestFindFromThePage(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	doc := testkit.Parse(t, testkit.Get(t, s, gcPauseURL(false, 1, "en")).Body.Bytes())
	w := testkit.Get(t, s, testkit.Attr(t, doc, "find", "hx-get"), "HX-Request", "true")
	testkit.MustStatus(t, w, http.StatusOK)
	res := testkit.Parse(t, w.Body.Bytes())
	if got := testkit.Attr(t, res, "find-result", "data-found"); got != "true" {
		t.Fatalf("with fencing off the finder found nothing: %s", testkit.TestID(t, res, "find-result"))
	}
	if n := res.Find(".find-trace li").Length(); n == 0 || n > 7 {
		t.Fatalf("the trace has %d actions, want 1 to 7", n)
	}
	broken := testkit.Get(t, s, testkit.Attr(t, res, "find-play", "href"))
	testkit.MustStatus(t, broken, http.StatusOK)
	if got := testkit.Attr(t, testkit.Parse(t, broken.Body.Bytes()), "verdict", "data-verdict"); got != demo.StaleWrite.String() {
		t.Fatalf("the trace played as frames ends with %q, want a stale write", got)
	}
	if s.finder.results.kept.Len() != 1 {
		t.Fatalf("%d results kept, want the one", s.finder.results.kept.Len())
	}

	// Fencing on, and without JavaScript: a page of its own.
	on := views.Place{Place: demo.Place{Sc: gcPause(t), On: true, Step: 1}, Lang: "ja"}
	w = testkit.Get(t, s, on.FindURL())
	testkit.MustStatus(t, w, http.StatusOK)
	page := testkit.Parse(t, w.Body.Bytes())
	if got := testkit.Attr(t, page, "find-result", "data-found"); got != "false" {
		t.Fatalf("with fencing on the finder found a stale write: %s", testkit.TestID(t, page, "find-result"))
	}
	states, _ := strconv.Atoi(testkit.Attr(t, page, "find-result", "data-states"))
	if states < 2 || page.Find(`[data-testid="find-none"], [data-testid="find-budget"]`).Length() != 1 {
		t.Fatalf("with fencing on the answer does not say how far it looked (%d states): %s", states, testkit.TestID(t, page, "find-result"))
	}
	if got := testkit.Attr(t, page, "find-back", "href"); got != on.URL() {
		t.Fatalf("the way back is %q, want %q", got, on.URL())
	}
}

// Where the switch's fix is only partial (WAIT against a failover), the
// finder finds the way around it with the switch on, and the answer says
// that this is the lesson; with the switch off, the same way is no news.
func TestFindPartialFix(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	sc, ok := s.Catalog().Get("redis-failover")
	if !ok || sc.Expect[1].Finder == nil || !sc.Expect[1].Finder.Found {
		t.Fatalf("redis-failover no longer expects the finder to get round WAIT: %+v", sc.Expect)
	}
	for _, on := range []bool{true, false} {
		for _, lang := range []string{"en", "ja"} {
			u := views.Place{Place: demo.Place{Sc: sc, On: on, Step: 1}, Lang: lang}.FindURL()
			doc := testkit.Parse(t, testkit.Get(t, s, u, "HX-Request", "true").Body.Bytes())
			if got := testkit.Attr(t, doc, "find-result", "data-found"); got != "true" {
				t.Fatalf("%s=%s: the finder found no way to break it", sc.Switch, demo.OnOff(on))
			}
			partial := doc.Find(`[data-testid="find-partial"]`)
			if got := partial.Length() == 1; got != on {
				t.Fatalf("%s=%s: the page says the fix is partial: %v, want %v", sc.Switch, demo.OnOff(on), got, on)
			}
			if on && partial.Text() != views.T(lang, "find.partial") {
				t.Fatalf("the partial fix's note in %s is %q", lang, partial.Text())
			}
		}
	}
}

// Searches are bounded: a core's worth at once, the others waiting their
// turn for a moment and then turned away with a page that says how long to
// wait, and Retry-After; a place searched before is answered at once
// however busy the finder is, and a room asking from one frame at once
// costs one search.
func TestFindIsBounded(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	s.expensive.wait = 50 * time.Millisecond
	u := views.Place{Place: demo.Place{Sc: gcPause(t), On: false, Step: 3}, Lang: "en"}.FindURL()
	testkit.MustStatus(t, testkit.Get(t, s, u), http.StatusOK) // searched once: kept
	var held []func()
	for range s.expensive.slots {
		leave, _, ok := s.expensive.enter(t.Context(), "198.51.100.1")
		if !ok {
			t.Fatal("an idle gate turned a search away")
		}
		held = append(held, leave)
	}
	testkit.MustStatus(t, testkit.Get(t, s, u), http.StatusOK)
	other := views.Place{Place: demo.Place{Sc: gcPause(t), On: true, Step: 3}, Lang: "en"}.FindURL()
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, other, nil))
	testkit.MustStatus(t, w, http.StatusServiceUnavailable)
	if secs, err := strconv.Atoi(w.Header().Get("Retry-After")); err != nil || secs < 1 {
		t.Fatalf("a search turned away says Retry-After %q, want whole seconds", w.Header().Get("Retry-After"))
	}
	if msg := testkit.TestID(t, testkit.Parse(t, w.Body.Bytes()), "error-message"); !strings.Contains(msg, "Try again in "+w.Header().Get("Retry-After")+" s") {
		t.Fatalf("the busy page says %q, want how long to wait", msg)
	}
	for _, leave := range held {
		leave()
	}
	// Twenty students asking from one new frame at once: one search.
	third := views.Place{Place: demo.Place{Sc: gcPause(t), On: true, Step: 2}, Lang: "en"}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() { testkit.MustStatus(t, testkit.Get(t, s, third.FindURL()), http.StatusOK) })
	}
	wg.Wait()
	if got := s.finder.searches.Load(); got != 2 {
		t.Fatalf("%d searches for 20 askers of one frame and one of another, want 2", got)
	}
}

// The operator's budget bounds a search from the page: with -find-states
// 300, gc-pause with fencing on (197,561 states to depth 8) stops at 300
// and says how deep every history was tried.
func TestFindTakesTheOperatorsBudget(t *testing.T) {
	cfg := DefaultConfig()
	cfg.FindStates = 300
	s := newTestServer(t, cfg)
	u := views.Place{Place: demo.Place{Sc: gcPause(t), On: true, Step: 1}, Lang: "en"}.FindURL()
	doc := testkit.Parse(t, testkit.Get(t, s, u, "HX-Request", "true").Body.Bytes())
	if got := testkit.Attr(t, doc, "find-result", "data-states"); got != "300" {
		t.Errorf("with -find-states 300 the search explored %s states", got)
	}
	if doc.Find(`[data-testid="find-budget"]`).Length() != 1 {
		t.Errorf("a search cut short by the budget does not say so: %s", testkit.TestID(t, doc, "find-result"))
	}
}

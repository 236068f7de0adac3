package web

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
)

// The handler tests drive the whole application, wired as main wires it,
// through httptest: a visitor's deep links, clicks with and without htmx, a
// restart in the middle of a lecture, and every kind of bad input. What a
// frame should show is what the model computes for it, so the tests replay
// the model and compare; the chapter's story screen.Checkpoints are written out by
// hand as well, so a broken model cannot pass by agreeing with itself.

// Deep links.

// Every frame in both switch positions and both languages opens straight
// from its URL and shows what the model computes.
func TestDeepLinks(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	sc := gcPause(t)
	for _, on := range []bool{true, false} {
		for _, lang := range []string{"ja", "en"} {
			for step := 1; step <= sc.Frames(); step++ {
				target := gcPauseURL(on, step, lang)
				t.Run(strings.TrimPrefix(target, "/scenarios/"), func(t *testing.T) {
					w := testkit.Get(t, s, target)
					testkit.MustStatus(t, w, http.StatusOK)
					doc := testkit.Parse(t, w.Body.Bytes())
					if got, want := doc.Find("html").AttrOr("lang", ""), lang; got != want {
						t.Fatalf("html lang=%q, want %q", got, want)
					}
					mustShow(t, doc, testkit.Frame(t, sc, on, step), lang)
					// A page opened from a link has no run yet.
					if got := runID(t, doc); got != "" {
						t.Fatalf("run=%q, want none before the first click", got)
					}
					// A canonical address must be absolute, and the server
					// is not told its public address: it names none.
					if n := doc.Find(`link[rel="canonical"]`).Length(); n != 0 {
						t.Fatalf("%d rel=canonical links, want none without a public address", n)
					}
				})
			}
		}
	}
}

// The chapter's story, written out so that the deep links cannot pass with a
// model that computes the wrong story: B takes over with token 2, and A's
// late write with token 1 is turned away only when the resource is fenced.
func TestChapterCheckpoints(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, tt := range []struct {
		on                bool
		step              int
		holder, token     string
		value, max, rejct string
	}{
		{on: true, step: 5, holder: "B", token: "2", value: `"B"`, max: "2", rejct: "0"},
		{on: false, step: 5, holder: "B", token: "2", value: `"B"`, max: "2", rejct: "0"},
		{on: true, step: 7, holder: "B", token: "2", value: `"B"`, max: "2", rejct: "1"},
		{on: false, step: 7, holder: "B", token: "2", value: `"A"`, max: "2", rejct: "0"},
	} {
		t.Run(fmt.Sprintf("fencing-%s/step-%d", demo.OnOff(tt.on), tt.step), func(t *testing.T) {
			w := testkit.Get(t, s, gcPauseURL(tt.on, tt.step, "en"))
			testkit.MustStatus(t, w, http.StatusOK)
			doc := testkit.Parse(t, w.Body.Bytes())
			if got, want := testkit.TestID(t, doc, "holder"), tt.holder; got != want {
				t.Fatalf("holder=%q, want %q", got, want)
			}
			if got, want := testkit.TestID(t, doc, "token"), tt.token; got != want {
				t.Fatalf("token=%q, want %q", got, want)
			}
			if got, want := testkit.TestID(t, doc, "resource-value"), tt.value; got != want {
				t.Fatalf("resource-value=%q, want %q", got, want)
			}
			if got, want := testkit.TestID(t, doc, "max-token"), tt.max; got != want {
				t.Fatalf("max-token=%q, want %q", got, want)
			}
			if got, want := testkit.TestID(t, doc, "rejected"), tt.rejct; got != want {
				t.Fatalf("rejected=%q, want %q", got, want)
			}
		})
	}
}

// The screen's fixed words follow the language.
func TestLanguageLabels(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, tt := range []struct {
		lang       string
		step, free string
	}{
		{"ja", "1手すすめる", "空き"},
		{"en", "Step", "free"},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			w := testkit.Get(t, s, gcPauseURL(true, 1, tt.lang))
			testkit.MustStatus(t, w, http.StatusOK)
			doc := testkit.Parse(t, w.Body.Bytes())
			if got, want := doc.Find("html").AttrOr("lang", ""), tt.lang; got != want {
				t.Fatalf("html lang=%q, want %q", got, want)
			}
			if got, want := testkit.TestID(t, doc, "step"), tt.step; got != want {
				t.Fatalf("step button=%q, want %q", got, want)
			}
			if got := testkit.TestID(t, doc, "holder"); !strings.Contains(got, tt.free) {
				t.Fatalf("holder=%q, want it to say %q", got, tt.free)
			}
		})
	}
}

// Without ?lang= the browser's Accept-Language picks; ?lang= always wins.
func TestLanguageChoice(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, tt := range []struct {
		target, accept, want string
	}{
		{"/scenarios/gc-pause?step=2", "", "en"},
		{"/scenarios/gc-pause?step=2", "ja", "ja"},
		{"/scenarios/gc-pause?step=2", "ja-JP,ja;q=0.9,en;q=0.8", "ja"},
		{"/scenarios/gc-pause?step=2", "en-US,en;q=0.9,ja;q=0.8", "en"},
		{"/scenarios/gc-pause?step=2", "fr", "en"},
		{"/scenarios/gc-pause?step=2&lang=en", "ja", "en"},
		{"/scenarios/gc-pause?step=2&lang=ja", "en", "ja"},
		{"/", "ja", "ja"},
		{"/?lang=en", "ja", "en"},
	} {
		t.Run(tt.target+" "+tt.accept, func(t *testing.T) {
			w := testkit.Get(t, s, tt.target, "Accept-Language", tt.accept)
			testkit.MustStatus(t, w, http.StatusOK)
			doc := testkit.Parse(t, w.Body.Bytes())
			if got, want := doc.Find("html").AttrOr("lang", ""), tt.want; got != want {
				t.Fatalf("html lang=%q, want %q", got, want)
			}
			// The controls carry the language on, so the next click keeps it.
			if got, want := doc.Find(`#demo form input[name="lang"]`).First().AttrOr("value", ""), tt.want; got != want {
				t.Fatalf("form lang=%q, want %q", got, want)
			}
		})
	}
}

// The home page is the first frame of the chapter's scenario, fenced.
func TestHome(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	w := testkit.Get(t, s, "/")
	testkit.MustStatus(t, w, http.StatusOK)
	doc := testkit.Parse(t, w.Body.Bytes())
	mustShow(t, doc, testkit.Frame(t, gcPause(t), true, 1), "en")
	if got, want := testkit.Attr(t, doc, "fencing", "aria-pressed"), "true"; got != want {
		t.Fatalf("fencing aria-pressed=%q, want %q", got, want)
	}
	if got, want := testkit.TestID(t, doc, "step-index"), "1 / 7"; got != want {
		t.Fatalf("step-index=%q, want %q", got, want)
	}
}

// The scenario list shows every scenario, grouped as the texts group them,
// with a link to its first frame and its verdict at the last frame in each
// switch position, as the model computes it.
func TestIndex(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	w := testkit.Get(t, s, "/scenarios?lang=en")
	testkit.MustStatus(t, w, http.StatusOK)
	doc := testkit.Parse(t, w.Body.Bytes())
	for _, sc := range s.catalog.Scenarios {
		entry := doc.Find(`[data-testid="scenario-` + sc.ID + `"]`)
		if entry.Length() != 1 {
			t.Fatalf("%s: %d index entries, want 1", sc.ID, entry.Length())
		}
		if got, want := entry.Find("a").First().AttrOr("href", ""), views.FrameURL(sc, sc.Default, 1, "en"); got != want {
			t.Fatalf("%s: link=%q, want %q", sc.ID, got, want)
		}
		group := entry.Closest("section").Find("h2").Text()
		for _, word := range []string{sc.Purpose, map[string]string{"single": "one Redis node", "replicated": "primary and replica", "quorum": "quorum", "consensus": "consensus"}[sc.Topology]} {
			if !strings.Contains(group, word) {
				t.Fatalf("%s: group heading %q does not mention %q", sc.ID, group, word)
			}
		}
		for _, on := range []bool{false, true} {
			r, err := demo.Replay(sc, on, sc.Frames())
			if err != nil {
				t.Fatal(err)
			}
			f := r.Frame()
			want := views.OutcomeShort("en", f)
			o := entry.Find(`[data-testid="outcome-` + demo.OnOff(on) + `"]`)
			if !strings.Contains(o.Text(), want) {
				t.Fatalf("%s %s: outcome %q does not say %q", sc.ID, demo.OnOff(on), o.Text(), want)
			}
			if got, want := o.AttrOr("href", ""), views.FrameURL(sc, on, sc.Frames(), "en"); got != want {
				t.Fatalf("%s %s: outcome link=%q, want %q", sc.ID, demo.OnOff(on), got, want)
			}
		}
	}
	if got, want := doc.Find(".group h2").First().Text(), "Locks for efficiency · one Redis node"; got != want {
		t.Fatalf("first group=%q, want %q", got, want)
	}
}

// Clicks with htmx.

// mustStep posts a click with htmx and checks what every click answer must
// have: the frame the model computes, the clean URL to push, the live region
// text, and a run id that stays the same once the server has one.
func mustStep(t *testing.T, s http.Handler, sc *demo.Scenario, action string, p place, wantOn bool, wantStep int) place {
	t.Helper()
	w := click(t, s, action, p, true)
	testkit.MustStatus(t, w, http.StatusOK)
	mustFragment(t, w.Body.Bytes())
	if got, want := w.Header().Get("HX-Push-Url"), gcPauseURL(wantOn, wantStep, p.lang); got != want {
		t.Fatalf("%s from %d: HX-Push-Url=%q, want %q", action, p.from, got, want)
	}
	doc := testkit.Parse(t, w.Body.Bytes())
	if got, want := doc.Find("#demo").Length(), 1; got != want {
		t.Fatalf("%d #demo elements, want %d", got, want)
	}
	mustShow(t, doc, testkit.Frame(t, sc, wantOn, wantStep), p.lang)
	announce := doc.Find(`#announce[hx-swap-oob]`)
	if got, want := announce.Length(), 1; got != want {
		t.Fatalf("%d out-of-band #announce, want %d", got, want)
	}
	if got, want := strings.TrimSpace(announce.Text()), fmt.Sprintf("%d / %d.", wantStep, sc.Frames()); !strings.HasPrefix(got, want) {
		t.Fatalf("announce=%q, want it to start with %q", got, want)
	}
	run := runID(t, doc)
	mustRunID(t, run)
	if p.run != "" && run != p.run {
		t.Fatalf("run id changed from %q to %q on a live run", p.run, run)
	}
	return place{run: run, from: wantStep, on: wantOn, lang: p.lang}
}

// A visitor opens the first frame and clicks Step through to the end.
func TestStepThroughWithHTMX(t *testing.T) {
	sc := gcPause(t)
	for _, tt := range []struct {
		on   bool
		lang string
	}{{true, "en"}, {false, "ja"}} {
		t.Run(demo.OnOff(tt.on)+"-"+tt.lang, func(t *testing.T) {
			s := newTestServer(t, DefaultConfig())
			p := place{from: 1, on: tt.on, lang: tt.lang}
			for step := 2; step <= sc.Frames(); step++ {
				p = mustStep(t, s, sc, "step", p, tt.on, step)
			}
			// Step at the last frame stays there, with the button disabled.
			w := click(t, s, "step", p, true)
			testkit.MustStatus(t, w, http.StatusOK)
			doc := testkit.Parse(t, w.Body.Bytes())
			if got, want := testkit.TestID(t, doc, "step-index"), "7 / 7"; got != want {
				t.Fatalf("step-index=%q after Step on the last frame, want %q", got, want)
			}
			if _, disabled := doc.Find(`[data-testid="step"]`).Attr("disabled"); !disabled {
				t.Fatal("Step is enabled on the last frame, want disabled")
			}
			if got := testkit.TestID(t, doc, "lesson"); got == "" {
				t.Fatal("the last frame shows no lesson")
			}
		})
	}
}

// Back, Reset and the switch, with htmx.
func TestBackResetSwitch(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, DefaultConfig())
	p := place{from: 1, on: true, lang: "en"}
	for step := 2; step <= 5; step++ {
		p = mustStep(t, s, sc, "step", p, true, step)
	}
	p = mustStep(t, s, sc, "back", p, true, 4)
	// The switch keeps the step and flips the switch and the resource.
	p = mustStep(t, s, sc, "switch", p, false, 4)
	p = mustStep(t, s, sc, "step", p, false, 5)
	p = mustStep(t, s, sc, "switch", p, true, 5)
	p = mustStep(t, s, sc, "reset", p, true, 1)
	// Back at the first frame stays there.
	p = mustStep(t, s, sc, "back", p, true, 1)
	// Switch at the last frame, where the two endings differ most.
	for step := 2; step <= sc.Frames(); step++ {
		p = mustStep(t, s, sc, "step", p, true, step)
	}
	p = mustStep(t, s, sc, "switch", p, false, 7)
	mustStep(t, s, sc, "switch", p, true, 7)
}

// Double submits.

// walkTo steps a new run from the first frame to frame step with htmx and
// returns the place it ends on.
func walkTo(t *testing.T, s http.Handler, sc *demo.Scenario, on bool, step int) place {
	t.Helper()
	p := place{from: 1, on: on, lang: "en"}
	for k := 2; k <= step; k++ {
		p = mustStep(t, s, sc, "step", p, on, k)
	}
	return p
}

// liveFrame is where the server's live run stands: white-box, because every
// answer to a click names the frame the click asked for whatever the run did.
func liveFrame(t *testing.T, s *Server, run string) int {
	t.Helper()
	lr, ok := s.runs.cache.Peek(follow.LectureID(run))
	if !ok {
		t.Fatalf("run %q is not live", run)
	}
	lr.mu.Lock()
	defer lr.mu.Unlock()
	return lr.at.Step
}

// A double click sends the same step twice: both answer the next frame.
func TestDoubleSubmit(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, DefaultConfig())
	p := walkTo(t, s, sc, true, 3)
	first := mustStep(t, s, sc, "step", p, true, 4)
	second := mustStep(t, s, sc, "step", p, true, 4)
	if got, want := second.run, first.run; got != want {
		t.Fatalf("second answer's run=%q, want the same run %q", got, want)
	}
	if got, want := liveFrame(t, s, p.run), 4; got != want {
		t.Fatalf("live run at frame %d after a double click from 3, want %d", got, want)
	}
}

// Twenty copies of one click at once: every answer is frame 4, and the live
// run has moved one step.
func TestConcurrentDoubleSubmit(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, DefaultConfig())
	p := walkTo(t, s, sc, true, 3)

	const n = 20
	answers := make([]*httptest.ResponseRecorder, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := testkit.PostRequest("/scenarios/gc-pause/step", p.form(), true)
			w := httptest.NewRecorder()
			<-start
			s.ServeHTTP(w, r)
			answers[i] = w
		}()
	}
	close(start)
	wg.Wait()

	f := testkit.Frame(t, sc, true, 4)
	for i, w := range answers {
		testkit.MustStatus(t, w, http.StatusOK)
		doc := testkit.Parse(t, w.Body.Bytes())
		mustShow(t, doc, f, "en")
		if got, want := runID(t, doc), p.run; got != want {
			t.Fatalf("answer %d: run=%q, want %q", i, got, want)
		}
	}
	if got, want := liveFrame(t, s, p.run), 4; got != want {
		t.Fatalf("live run at frame %d after %d clicks from 3, want %d", got, n, want)
	}
}

// Restarts and evictions.

// The next click after a restart carries a run key the new server never saw:
// it continues at the right frame under the same key, so the lecture's
// follow link (derived from the key) carries on too.
func TestRestartRecovery(t *testing.T) {
	sc := gcPause(t)
	for _, on := range []bool{true, false} {
		t.Run("fencing-"+demo.OnOff(on), func(t *testing.T) {
			before := newTestServer(t, DefaultConfig())
			p := walkTo(t, before, sc, on, 5)

			after := newTestServer(t, DefaultConfig()) // "restarted"
			w := click(t, after, "step", p, true)
			testkit.MustStatus(t, w, http.StatusOK)
			doc := testkit.Parse(t, w.Body.Bytes())
			mustShow(t, doc, testkit.Frame(t, sc, on, 6), "en")
			run := runID(t, doc)
			mustRunID(t, run)
			if run != p.run {
				t.Fatalf("run=%q after the restart, want the key %q kept", run, p.run)
			}
			next := mustStep(t, after, sc, "step", place{run: run, from: 6, on: on, lang: "en"}, on, 7)
			if got, want := next.run, run; got != want {
				t.Fatalf("run=%q after the second click, want %q kept", got, want)
			}
		})
	}
}

// With room for one run only, two visitors clicking in turn keep evicting
// each other's run; each still sees their own frame, every time.
func TestEviction(t *testing.T) {
	sc := gcPause(t)
	cfg := DefaultConfig()
	cfg.MaxRuns = 1
	s := newTestServer(t, cfg)
	visitors := []place{
		{from: 1, on: true, lang: "en"},
		{from: 1, on: false, lang: "ja"},
	}
	for step := 2; step <= sc.Frames(); step++ {
		for i, p := range visitors {
			w := click(t, s, "step", p, true)
			testkit.MustStatus(t, w, http.StatusOK)
			doc := testkit.Parse(t, w.Body.Bytes())
			mustShow(t, doc, testkit.Frame(t, sc, p.on, step), p.lang)
			if got, want := w.Header().Get("HX-Push-Url"), gcPauseURL(p.on, step, p.lang); got != want {
				t.Fatalf("visitor %d: HX-Push-Url=%q, want %q", i, got, want)
			}
			run := runID(t, doc)
			mustRunID(t, run)
			visitors[i] = place{run: run, from: step, on: p.on, lang: p.lang}
		}
		if got, want := s.runs.Len(), 1; got != want {
			t.Fatalf("%d live runs, want at most %d", got, want)
		}
	}
}

// Without JavaScript.

var noJSLocation = regexp.MustCompile(`^/scenarios/gc-pause\?fencing=on&step=(\d)&lang=en$`)

// A browser without JavaScript posts the form and follows the redirect to
// the frame's address. The address carries no run key (whoever reads the
// projector could drive the run with it): the key comes back in an HttpOnly
// cookie, and the page's forms carry it on.
func TestNoJS(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, DefaultConfig())
	p := place{from: 1, on: true, lang: "en"}
	for step := 2; step <= 3; step++ {
		w := click(t, s, "step", p, false)
		testkit.MustStatus(t, w, http.StatusSeeOther)
		loc := w.Header().Get("Location")
		m := noJSLocation.FindStringSubmatch(loc)
		if m == nil {
			t.Fatalf("Location=%q, want %s", loc, noJSLocation)
		}
		if got, want := m[1], strconv.Itoa(step); got != want {
			t.Fatalf("Location=%q goes to step %s, want %s", loc, got, want)
		}
		cookie := runCookieOf(t, w)
		key := strings.TrimPrefix(cookie, runCookieName+"=")
		if p.run != "" && key != p.run {
			t.Fatalf("run cookie %q, want the live run %q kept", key, p.run)
		}

		w = testkit.Get(t, s, loc, "Cookie", cookie)
		testkit.MustStatus(t, w, http.StatusOK)
		if got := w.Header().Get("Cache-Control"); !strings.Contains(got, "private") {
			t.Fatalf("Cache-Control=%q for a page that carries a run key, want private", got)
		}
		doc := testkit.Parse(t, w.Body.Bytes())
		mustShow(t, doc, testkit.Frame(t, sc, true, step), "en")
		if got, want := runID(t, doc), key; got != want {
			t.Fatalf("forms carry run=%q, want %q from the cookie", got, want)
		}
		// The forms post without htmx too.
		doc.Find("#demo form").Each(func(i int, f *goquery.Selection) {
			if got := f.AttrOr("method", ""); got != "post" {
				t.Fatalf("form %d method=%q, want post", i, got)
			}
			if got, want := f.AttrOr("action", ""), f.AttrOr("hx-post", ""); got != want || got == "" {
				t.Fatalf("form %d action=%q, want hx-post's %q", i, got, want)
			}
		})
		p = place{run: key, from: step, on: true, lang: "en"}
	}
}

// Bad input.

// TestBadInput sends every kind of bad input, as a page request and as an
// htmx click, and wants the right status and a page that says what was
// wrong, and where possible a way back to where the visitor was.
func TestBadInput(t *testing.T) {
	okForm := func(edit func(url.Values)) url.Values {
		f := place{run: strings.Repeat("ab", 16), from: 3, on: false, lang: "en"}.form()
		if edit != nil {
			edit(f)
		}
		return f
	}
	for _, tt := range []struct {
		name   string
		method string
		target string
		form   url.Values // a POST body when not nil
		status int
		says   []string // in the error message
		cont   string   // the continue link; "" for the start page
		known  bool     // lists the known scenarios
	}{
		{name: "unknown scenario", method: "GET", target: "/scenarios/nope?lang=en",
			status: 404, says: []string{`"nope"`}, cont: "/?lang=en", known: true},
		{name: "unknown page", method: "GET", target: "/nowhere",
			status: 404, says: []string{"/nowhere"}, cont: "/?lang=en", known: true},
		{name: "step not a number", method: "GET", target: "/scenarios/gc-pause?fencing=off&step=abc&lang=en",
			status: 400, says: []string{`"abc"`, "1 to 7"}, cont: gcPauseURL(false, 1, "en")},
		{name: "step 0", method: "GET", target: "/scenarios/gc-pause?fencing=off&step=0&lang=en",
			status: 400, says: []string{`"0"`}, cont: gcPauseURL(false, 1, "en")},
		{name: "step -1", method: "GET", target: "/scenarios/gc-pause?fencing=off&step=-1&lang=en",
			status: 400, says: []string{`"-1"`}, cont: gcPauseURL(false, 1, "en")},
		{name: "step 8", method: "GET", target: "/scenarios/gc-pause?fencing=off&step=8&lang=en",
			status: 400, says: []string{`"8"`}, cont: gcPauseURL(false, 7, "en")},
		{name: "step huge", method: "GET", target: "/scenarios/gc-pause?step=99999999999999999999&lang=en",
			status: 400, says: []string{`"99999999999999999999"`}, cont: gcPauseURL(true, 1, "en")},
		{name: "step with markup", method: "GET", target: "/scenarios/gc-pause?step=%3Cscript%3Ealert(1)%3C/script%3E&lang=en",
			status: 400, says: []string{`"<script>alert(1)</script>"`}, cont: gcPauseURL(true, 1, "en")},
		{name: "fencing maybe", method: "GET", target: "/scenarios/gc-pause?fencing=maybe&step=5&lang=en",
			status: 400, says: []string{"fencing", `"maybe"`}, cont: gcPauseURL(true, 5, "en")},
		{name: "lang fr", method: "GET", target: "/scenarios/gc-pause?fencing=off&step=5&lang=fr",
			status: 400, says: []string{`"fr"`}, cont: gcPauseURL(false, 5, "en")},
		{name: "lang fr at home", method: "GET", target: "/?lang=fr",
			status: 400, says: []string{`"fr"`}, cont: "/?lang=en"},
		{name: "GET an action", method: "GET", target: "/scenarios/gc-pause/step",
			status: 405, says: []string{"GET", "/scenarios/gc-pause/step"}},
		{name: "DELETE a frame", method: "DELETE", target: "/scenarios/gc-pause",
			status: 405, says: []string{"DELETE", "/scenarios/gc-pause"}},
		{name: "PUT an action", method: "PUT", target: "/scenarios/gc-pause/step", form: okForm(nil),
			status: 405, says: []string{"PUT"}},

		{name: "POST unknown action", method: "POST", target: "/scenarios/gc-pause/jump", form: okForm(nil),
			status: 404, says: []string{`"jump"`}, cont: gcPauseURL(false, 3, "en")},
		{name: "POST unknown scenario", method: "POST", target: "/scenarios/nope/step", form: okForm(nil),
			status: 404, says: []string{`"nope"`}, cont: "/?lang=en", known: true},
		{name: "POST from not a number", method: "POST", target: "/scenarios/gc-pause/step",
			form:   okForm(func(f url.Values) { f.Set("from", "three") }),
			status: 400, says: []string{`"three"`}, cont: gcPauseURL(false, 1, "en")},
		{name: "POST from 9", method: "POST", target: "/scenarios/gc-pause/step",
			form:   okForm(func(f url.Values) { f.Set("from", "9") }),
			status: 400, says: []string{`"9"`}, cont: gcPauseURL(false, 7, "en")},
		{name: "POST fencing maybe", method: "POST", target: "/scenarios/gc-pause/switch",
			form:   okForm(func(f url.Values) { f.Set("fencing", "maybe") }),
			status: 400, says: []string{`"maybe"`}, cont: gcPauseURL(true, 3, "en")},
		{name: "POST lang fr", method: "POST", target: "/scenarios/gc-pause/step",
			form:   okForm(func(f url.Values) { f.Set("lang", "fr") }),
			status: 400, says: []string{`"fr"`}, cont: gcPauseURL(false, 3, "en")},
		{name: "POST malformed run", method: "POST", target: "/scenarios/gc-pause/step",
			form:   okForm(func(f url.Values) { f.Set("run", "../../etc/passwd") }),
			status: 400, says: []string{`"../../etc/passwd"`}, cont: gcPauseURL(false, 3, "en")},
		{name: "POST oversized body", method: "POST", target: "/scenarios/gc-pause/step",
			form:   okForm(func(f url.Values) { f.Set("pad", strings.Repeat("x", 17<<10)) }),
			status: 413, says: []string{"too large"}},
	} {
		for _, htmx := range []bool{false, true} {
			name := tt.name
			if htmx {
				name += " (htmx)"
			}
			t.Run(name, func(t *testing.T) {
				s := newTestServer(t, DefaultConfig())
				var body io.Reader
				if tt.form != nil {
					body = strings.NewReader(tt.form.Encode())
				}
				r := httptest.NewRequest(tt.method, tt.target, body)
				if tt.form != nil {
					r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				}
				if htmx {
					r.Header.Set("HX-Request", "true")
				}
				w := testkit.Do(t, s, r)
				testkit.MustStatus(t, w, tt.status)
				if got, want := w.Header().Get("Content-Type"), "text/html; charset=UTF-8"; got != want {
					t.Fatalf("Content-Type=%q, want %q", got, want)
				}
				for _, leak := range []string{"goroutine", ".go:", "panic"} {
					if strings.Contains(w.Body.String(), leak) {
						t.Fatalf("body contains %q, want no stack trace:\n%s", leak, w.Body)
					}
				}
				if htmx {
					mustFragment(t, w.Body.Bytes())
				}
				doc := testkit.Parse(t, w.Body.Bytes())
				if got, want := doc.Find(`#demo[data-testid="error"]`).Length(), 1; got != want {
					t.Fatalf("%d #demo error elements, want %d (htmx swaps it in for the demo)", got, want)
				}
				if !htmx {
					if got, want := doc.Find("html").AttrOr("lang", ""), "en"; got != want {
						t.Fatalf("html lang=%q, want %q", got, want)
					}
				}
				msg := testkit.TestID(t, doc, "error-message")
				for _, part := range tt.says {
					if !strings.Contains(msg, part) {
						t.Fatalf("error-message=%q, want it to mention %q", msg, part)
					}
				}
				cont := tt.cont
				if cont == "" {
					cont = "/?lang=en"
				}
				if got, want := testkit.Attr(t, doc, "continue", "href"), cont; got != want {
					t.Fatalf("continue=%q, want %q", got, want)
				}
				known := doc.Find(`[data-testid="error"] li a`).FilterFunction(func(_ int, a *goquery.Selection) bool {
					return a.Text() == "gc-pause"
				})
				if got, want := known.Length() == 1, tt.known; got != want {
					t.Fatalf("lists gc-pause=%v, want %v", got, want)
				}
				if tt.known {
					if got, want := known.AttrOr("href", ""), "/scenarios/gc-pause?lang=en"; got != want {
						t.Fatalf("gc-pause link=%q, want %q", got, want)
					}
				}
				if got, want := w.Header().Get("Cache-Control"), "no-store"; got != want {
					t.Fatalf("Cache-Control=%q, want %q", got, want)
				}
			})
		}
	}
}

// A Japanese visitor's bad link is explained in Japanese.
func TestBadInputInJapanese(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	w := testkit.Get(t, s, "/scenarios/gc-pause?fencing=maybe&lang=ja")
	testkit.MustStatus(t, w, http.StatusBadRequest)
	doc := testkit.Parse(t, w.Body.Bytes())
	if got, want := doc.Find("html").AttrOr("lang", ""), "ja"; got != want {
		t.Fatalf("html lang=%q, want %q", got, want)
	}
	if got, want := testkit.TestID(t, doc, "error-message"), `fencing は on か off で指定する。"maybe" は使えない。`; got != want {
		t.Fatalf("error-message=%q, want %q", got, want)
	}
	if got, want := testkit.Attr(t, doc, "continue", "href"), gcPauseURL(true, 1, "ja"); got != want {
		t.Fatalf("continue=%q, want %q", got, want)
	}
}

// Headers, static files, compression.

// Every kind of answer keeps scripts on our origin, may be framed by the
// textbook, and is not sniffed.
func TestSecurityHeaders(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	page := testkit.Get(t, s, "/")
	assets := staticURLs(t, testkit.Parse(t, page.Body.Bytes()))
	for name, w := range map[string]*httptest.ResponseRecorder{
		"page":     page,
		"frame":    testkit.Get(t, s, gcPauseURL(false, 7, "ja")),
		"htmx":     click(t, s, "step", place{from: 1, on: true, lang: "en"}, true),
		"redirect": click(t, s, "step", place{from: 1, on: true, lang: "en"}, false),
		"error":    testkit.Get(t, s, "/scenarios/nope"),
		"static":   testkit.Get(t, s, assets[0]),
		"healthz":  testkit.Get(t, s, "/healthz"),
	} {
		t.Run(name, func(t *testing.T) {
			csp := w.Header().Get("Content-Security-Policy")
			for _, d := range []string{"script-src 'self'", "frame-ancestors *"} {
				if !strings.Contains(csp, d) {
					t.Fatalf("Content-Security-Policy=%q, want it to contain %q", csp, d)
				}
			}
			if got := w.Header().Values("X-Frame-Options"); len(got) != 0 {
				t.Fatalf("X-Frame-Options=%q, want none (it would block the textbook's iframe)", got)
			}
			if got, want := w.Header().Get("X-Content-Type-Options"), "nosniff"; got != want {
				t.Fatalf("X-Content-Type-Options=%q, want %q", got, want)
			}
		})
	}
}

// The operator's frame-ancestors reaches the header.
func TestFrameAncestorsConfig(t *testing.T) {
	cfg := DefaultConfig()
	cfg.FrameAncestors = "https://textbook.example"
	s := newTestServer(t, cfg)
	csp := testkit.Get(t, s, "/").Header().Get("Content-Security-Policy")
	if want := "frame-ancestors https://textbook.example"; !strings.HasSuffix(csp, want) {
		t.Fatalf("Content-Security-Policy=%q, want it to end with %q", csp, want)
	}
}

// staticURLs returns the stylesheet, script and icon a page links to.
func staticURLs(tb testing.TB, doc *goquery.Document) []string {
	tb.Helper()
	var urls []string
	for _, x := range []struct{ sel, attr string }{
		{`link[rel="stylesheet"]`, "href"},
		{`script[src]`, "src"},
		{`link[rel="icon"]`, "href"},
	} {
		sel := doc.Find(x.sel)
		if sel.Length() == 0 {
			tb.Fatalf("the page has no %s", x.sel)
		}
		sel.Each(func(_ int, s *goquery.Selection) { urls = append(urls, s.AttrOr(x.attr, "")) })
	}
	return urls
}

// The page's static files are served under fingerprinted names that may be
// cached for a year.
func TestStaticAssets(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	page := testkit.Get(t, s, gcPauseURL(true, 1, "en"))
	name := regexp.MustCompile(`^/static/([a-z.]+)\.[0-9a-f]{8}(\.[a-z]+)$`)
	for _, u := range staticURLs(t, testkit.Parse(t, page.Body.Bytes())) {
		t.Run(u, func(t *testing.T) {
			m := name.FindStringSubmatch(u)
			if m == nil {
				t.Fatalf("asset URL %q, want /static/NAME.HASH.EXT", u)
			}
			w := testkit.Get(t, s, u)
			testkit.MustStatus(t, w, http.StatusOK)
			cc := w.Header().Get("Cache-Control")
			for _, d := range []string{"max-age=31536000", "immutable"} {
				if !strings.Contains(cc, d) {
					t.Fatalf("Cache-Control=%q, want it to contain %q", cc, d)
				}
			}
			orig, err := fs.ReadFile(testkit.Static(t), m[1]+m[2])
			if err != nil {
				t.Fatal(err)
			}
			orig = assetBody(m[1]+m[2], orig) // our own without their comments
			if !bytes.Equal(w.Body.Bytes(), orig) {
				t.Fatalf("%s serves %d bytes, want the %d of static/%s%s", u, w.Body.Len(), len(orig), m[1], m[2])
			}
			ctype := map[string]string{".css": "text/css", ".js": "javascript", ".svg": "image/svg+xml"}[m[2]]
			if got := w.Header().Get("Content-Type"); ctype == "" || !strings.Contains(got, ctype) {
				t.Fatalf("Content-Type=%q, want %q", got, ctype)
			}
		})
	}
	for _, u := range []string{"/static/x.css", "/static/app.css", "/static/app.00000000.css"} {
		t.Run(u, func(t *testing.T) {
			w := testkit.Get(t, s, u)
			testkit.MustStatus(t, w, http.StatusNotFound)
			if cc := w.Header().Get("Cache-Control"); strings.Contains(cc, "immutable") {
				t.Fatalf("a missing file has Cache-Control=%q, want it not cached for good", cc)
			}
		})
	}
}

// gunzip decompresses a response body sent with Content-Encoding: gzip.
func gunzip(tb testing.TB, w *httptest.ResponseRecorder) []byte {
	tb.Helper()
	if got, want := w.Header().Get("Content-Encoding"), "gzip"; got != want {
		tb.Fatalf("Content-Encoding=%q, want %q", got, want)
	}
	zr, err := gzip.NewReader(w.Body)
	if err != nil {
		tb.Fatalf("gzip: %v", err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatalf("gzip: %v", err)
	}
	return b
}

// Pages, fragments and static files are compressed for a client that asks.
func TestGzip(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	sc := gcPause(t)

	w := testkit.Get(t, s, gcPauseURL(true, 7, "en"), "Accept-Encoding", "gzip")
	testkit.MustStatus(t, w, http.StatusOK)
	if got := w.Header().Get("Vary"); !strings.Contains(got, "Accept-Encoding") {
		t.Fatalf("Vary=%q, want it to name Accept-Encoding", got)
	}
	doc := testkit.Parse(t, gunzip(t, w))
	mustShow(t, doc, testkit.Frame(t, sc, true, 7), "en")

	r := testkit.PostRequest("/scenarios/gc-pause/step", place{from: 1, on: true, lang: "en"}.form(), true)
	r.Header.Set("Accept-Encoding", "gzip")
	w = testkit.Do(t, s, r)
	testkit.MustStatus(t, w, http.StatusOK)
	mustShow(t, testkit.Parse(t, gunzip(t, w)), testkit.Frame(t, sc, true, 2), "en")

	for _, u := range staticURLs(t, doc) {
		if strings.HasSuffix(u, ".svg") {
			continue // the icon may be below gzip's minimum length
		}
		w := testkit.Get(t, s, u, "Accept-Encoding", "gzip")
		testkit.MustStatus(t, w, http.StatusOK)
		gunzip(t, w)
	}

	// A client that does not ask gets plain HTML.
	w = testkit.Get(t, s, gcPauseURL(true, 7, "en"))
	if got := w.Header().Get("Content-Encoding"); got != "" {
		t.Fatalf("Content-Encoding=%q without Accept-Encoding, want none", got)
	}
}

func TestHealthz(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	w := testkit.Get(t, s, "/healthz")
	testkit.MustStatus(t, w, http.StatusOK)
	if got, want := w.Body.String(), "ok"; got != want {
		t.Fatalf("body=%q, want %q", got, want)
	}
}

// Other hosts.

// The page works offline and in a school's filtered network: everything it
// loads or links to is on our own origin, except the lesson's sources, which
// are plain links to the primary texts that a reader may follow and the page
// never loads.
func TestNoOtherHost(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	abs := regexp.MustCompile(`(?i)\b(src|href|action|hx-post|hx-get)\s*=\s*["']?\s*(https?:)?//`)
	pages := map[string]*httptest.ResponseRecorder{
		"home":     testkit.Get(t, s, "/"),
		"frame ja": testkit.Get(t, s, gcPauseURL(false, 7, "ja")),
		"frame en": testkit.Get(t, s, gcPauseURL(true, 4, "en")),
		"index":    testkit.Get(t, s, "/scenarios"),
		"error":    testkit.Get(t, s, "/scenarios/nope"),
		"htmx":     click(t, s, "step", place{from: 1, on: true, lang: "en"}, true),
	}
	for name, w := range pages {
		t.Run(name, func(t *testing.T) {
			doc := testkit.Parse(t, w.Body.Bytes())
			sources := doc.Find(`[data-testid="sources"]`)
			if sources.Find("[src],[action],[hx-get],[hx-post],link,script,img,iframe").Length() > 0 {
				t.Fatal("the sources list loads something")
			}
			sources.Find("[href]").Each(func(_ int, a *goquery.Selection) {
				if u, err := url.Parse(a.AttrOr("href", "")); goquery.NodeName(a) != "a" || err != nil || u.Scheme != "https" || !strings.Contains(a.AttrOr("rel", ""), "noreferrer") {
					t.Fatalf("source link %s href=%q rel=%q: want a plain https link with rel noreferrer", goquery.NodeName(a), a.AttrOr("href", ""), a.AttrOr("rel", ""))
				}
			})
			sources.Remove()
			rest, err := doc.Html()
			if err != nil {
				t.Fatal(err)
			}
			if loc := abs.FindString(rest); loc != "" {
				t.Fatalf("the page refers to another host: %s", loc)
			}
			doc.Find("[src],[href],[action]").Each(func(_ int, e *goquery.Selection) {
				for _, a := range []string{"src", "href", "action"} {
					v, ok := e.Attr(a)
					if !ok {
						continue
					}
					u, err := url.Parse(v)
					if err != nil || u.Host != "" || u.Scheme != "" {
						t.Fatalf("%s=%q points off the site", a, v)
					}
				}
			})
		})
	}
}

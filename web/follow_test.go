package web

// The follow-along tests: the broker alone (latest wins, publishing never
// waits, the limits), then the handlers through httptest with a plain HTTP
// client reading the event stream line by line, then a real Chromium with a
// lecturer's tab and a follower's tab.

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/internal/testkit/screen"
	"github.com/distlock/fencing-demo/views"
)

// The handlers.

var followLinkPattern = regexp.MustCompile(`^/follow/[0-9a-f]{32}$`)

// followLink returns the share box's follow link.
func followLink(tb testing.TB, doc *goquery.Document) string {
	tb.Helper()
	link := testkit.Attr(tb, doc, "follow-link", "href")
	if !followLinkPattern.MatchString(link) {
		tb.Fatalf("follow link %q, want %s", link, followLinkPattern)
	}
	if got, want := testkit.Attr(tb, doc, "follow-qr", "src"), link+"/qr.svg"; got != want {
		tb.Fatalf("follow QR src=%q, want %q", got, want)
	}
	return link
}

// lecturer is a lecturer's run, clicked with htmx.
type lecturer struct {
	p      place
	follow string // the follow link the share box shows
}

// startLecture opens the first frame and makes the first click, which makes
// the run and its follow link.
func startLecture(t *testing.T, h http.Handler, on bool, lang string) *lecturer {
	t.Helper()
	doc := testkit.Parse(t, testkit.Get(t, h, gcPauseURL(on, 1, lang)).Body.Bytes())
	if n := doc.Find(`[data-testid="follow-link"]`).Length(); n != 0 {
		t.Fatalf("a page with no run shows %d follow links, want none", n)
	}
	l := &lecturer{p: place{from: 1, on: on, lang: lang}}
	l.step(t, h)
	return l
}

// step clicks Step and checks the follow link stays the same.
func (l *lecturer) step(t *testing.T, h http.Handler) {
	t.Helper()
	w := click(t, h, "step", l.p, true)
	testkit.MustStatus(t, w, http.StatusOK)
	doc := testkit.Parse(t, w.Body.Bytes())
	mustShow(t, doc, testkit.Frame(t, gcPause(t), l.p.on, l.p.from+1), l.p.lang)
	run := runID(t, doc)
	link := followLink(t, doc)
	if strings.Contains(link, run) {
		t.Fatalf("follow link %q contains the run id %q", link, run)
	}
	if l.follow != "" && link != l.follow {
		t.Fatalf("follow link changed from %q to %q", l.follow, link)
	}
	l.follow = link
	l.p = place{run: run, from: l.p.from + 1, on: l.p.on, lang: l.p.lang}
}

// fid is the follow id in the lecturer's link.
func (l *lecturer) fid() string { return strings.TrimPrefix(l.follow, "/follow/") }

// mustFollowShow fails unless a follower's page or event shows frame f in
// lang, read-only.
func mustFollowShow(tb testing.TB, doc *goquery.Document, f demo.Frame, lang string) {
	tb.Helper()
	got := display{
		Index:    testkit.TestID(tb, doc, "step-index"),
		Pressed:  strconv.FormatBool(testkit.Attr(tb, doc, "follow-switch", "data-on") == "on"),
		Holder:   testkit.TestID(tb, doc, "holder"),
		Token:    testkit.TestID(tb, doc, "token"),
		Expiry:   testkit.TestID(tb, doc, "lease-expiry"),
		Now:      testkit.TestID(tb, doc, "now"),
		Value:    testkit.TestID(tb, doc, "resource-value"),
		MaxToken: testkit.TestID(tb, doc, "max-token"),
		Rejected: testkit.TestID(tb, doc, "rejected"),
		Fenced:   doc.Find("#h-res .badge").HasClass("on"),
	}
	if want := expect(f, lang); got != want {
		tb.Fatalf("follower sees frame %d (fencing %s, %s) as\n %+v\nwant\n %+v", f.Index, demo.OnOff(f.On), lang, got, want)
	}
	if got, want := testkit.Attr(tb, doc, "try", "href"), gcPauseURL(f.On, f.Index, lang); got != want {
		tb.Fatalf("try it myself=%q, want the frame's own address %q", got, want)
	}
	mustReadOnly(tb, doc)
}

// mustReadOnly fails if a follower is offered anything that posts.
func mustReadOnly(tb testing.TB, doc *goquery.Document) {
	tb.Helper()
	if n := doc.Find(`form, button, input, [hx-post], [hx-get], [hx-put], [hx-delete]`).Length(); n != 0 {
		html, _ := doc.Html()
		tb.Fatalf("a follower is shown %d forms, buttons, inputs or htmx requests, want none:\n%s", n, html)
	}
}

// The share box shows the follow link from the first click on, without and
// with JavaScript, and the follower's page shows the lecturer's frame in the
// follower's own language.
func TestFollowPage(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, DefaultConfig())
	l := startLecture(t, s, false, "en")
	l.step(t, s) // frame 3

	// Without JavaScript the lecturer's page is reached by a redirect, the
	// run key in its cookie; it shows the same link.
	w := click(t, s, "step", l.p, false)
	testkit.MustStatus(t, w, http.StatusSeeOther)
	doc := testkit.Parse(t, testkit.Get(t, s, w.Header().Get("Location"), "Cookie", runCookieOf(t, w)).Body.Bytes())
	if got := followLink(t, doc); got != l.follow {
		t.Fatalf("no-JS page's follow link=%q, want %q", got, l.follow)
	}
	l.p.from = 4

	for _, tc := range []struct {
		name, query, acceptLang, want string
	}{
		{"accept-language ja", "", "ja,en;q=0.5", "ja"},
		{"accept-language en", "", "en-GB", "en"},
		{"lang=ja wins", "?lang=ja", "en", "ja"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := testkit.Get(t, s, l.follow+tc.query, "Accept-Language", tc.acceptLang)
			testkit.MustStatus(t, w, http.StatusOK)
			if got, want := w.Header().Get("Cache-Control"), "no-store"; got != want {
				t.Fatalf("Cache-Control=%q, want %q", got, want)
			}
			doc := testkit.Parse(t, w.Body.Bytes())
			if got := doc.Find("html").AttrOr("lang", ""); got != tc.want {
				t.Fatalf("html lang=%q, want %q", got, tc.want)
			}
			mustFollowShow(t, doc, testkit.Frame(t, sc, false, 4), tc.want)
			if got, want := doc.Find("#follow").AttrOr("data-events", ""), l.follow+"/events?lang="+tc.want; got != want {
				t.Fatalf("stream=%q, want %q", got, want)
			}
			if got, want := testkit.Attr(t, doc, "reload", "href"), l.follow+"?lang="+tc.want; got != want {
				t.Fatalf("reload=%q, want %q", got, want)
			}
			if got, want := testkit.Attr(t, doc, "lang", "href"), l.follow+"?lang="+views.OtherLang(tc.want); got != want {
				t.Fatalf("language switch=%q, want %q", got, want)
			}
			if got, want := testkit.TestID(t, doc, "follow-status"), views.T(tc.want, "follow.status.nojs"); got != want {
				t.Fatalf("status without JavaScript=%q, want %q", got, want)
			}
			if n := doc.Find("#announce[aria-live]").Length(); n != 1 {
				t.Fatalf("%d #announce live regions, want 1", n)
			}
			// follow.js and the stylesheet; no htmx, no app.js.
			var scripts []string
			doc.Find("script[src]").Each(func(_ int, s *goquery.Selection) { scripts = append(scripts, s.AttrOr("src", "")) })
			if len(scripts) != 1 || !strings.Contains(scripts[0], "/static/follow.") {
				t.Fatalf("scripts=%q, want follow.js alone", scripts)
			}
			if got := testkit.Get(t, s, scripts[0]); got.Code != http.StatusOK || !strings.Contains(got.Header().Get("Content-Type"), "javascript") {
				t.Fatalf("%s: %d %s", scripts[0], got.Code, got.Header().Get("Content-Type"))
			}
		})
	}

	// A lecturer's page never shows a follow link that another run owns.
	other := startLecture(t, s, true, "en")
	if other.follow == l.follow {
		t.Fatalf("two runs share the follow link %q", l.follow)
	}
}

// The QR code in the share box encodes the follower's page on this host.
func TestFollowQR(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	l := startLecture(t, s, true, "en")
	w := testkit.Get(t, s, l.follow+"/qr.svg")
	testkit.MustStatus(t, w, http.StatusOK)
	if got := w.Header().Get("Content-Type"); got != "image/svg+xml" {
		t.Fatalf("Content-Type=%q", got)
	}
	if !strings.HasPrefix(w.Body.String(), "<svg") {
		t.Fatalf("body is not an SVG: %.60s", w.Body.String())
	}
	// A lecture's link is good before its first move here (after a
	// restart); only what cannot be a follow id is a 404.
	testkit.MustStatus(t, testkit.Get(t, s, "/follow/"+newRunID()+"/qr.svg"), http.StatusOK)
	testkit.MustStatus(t, testkit.Get(t, s, "/follow/nope/qr.svg"), http.StatusNotFound)
}

// What cannot be a follow id is a 404 page that offers the scenario list,
// never a 500; so are its stream and its QR code. A follow id with no move
// here yet (the server restarted, the lecture was idle long ago) is a page
// that waits for the lecturer and reloads itself, and its stream opens and
// waits too, so EventSource never gives up on a lecture that goes on.
func TestFollowUnknown(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, target := range []string{"/follow/nope", "/follow/" + strings.Repeat("A", 32)} {
		for _, lang := range []string{"en", "ja"} {
			t.Run(target+"/"+lang, func(t *testing.T) {
				w := testkit.Get(t, s, target, "Accept-Language", lang)
				testkit.MustStatus(t, w, http.StatusNotFound)
				doc := testkit.Parse(t, w.Body.Bytes())
				if got, want := testkit.TestID(t, doc, "error-message"), views.T(lang, "err.follow.gone"); got != want {
					t.Fatalf("message=%q, want %q", got, want)
				}
				if got, want := testkit.Attr(t, doc, "continue", "href"), "/scenarios?lang="+lang; got != want {
					t.Fatalf("continue=%q, want the scenario list %q", got, want)
				}
				if doc.Find(`a[href^="/scenarios/gc-pause"]`).Length() == 0 {
					t.Fatal("the page lists no scenarios")
				}
				w = testkit.Get(t, s, target+"/events?lang="+lang)
				testkit.MustStatus(t, w, http.StatusNotFound)
			})
		}
	}
	waiting := "/follow/" + newRunID()
	for _, lang := range []string{"en", "ja"} {
		w := httptest.NewRecorder() // not testkit.Get, which fails any 5xx
		r := httptest.NewRequest(http.MethodGet, waiting, nil)
		r.Header.Set("Accept-Language", lang)
		s.ServeHTTP(w, r)
		testkit.MustStatus(t, w, http.StatusServiceUnavailable)
		if got := w.Header().Get("Refresh"); got == "" {
			t.Fatal("a waiting follower's page does not reload itself")
		}
		doc := testkit.Parse(t, w.Body.Bytes())
		if got, want := testkit.TestID(t, doc, "error-message"), views.T(lang, "err.follow.wait"); got != want {
			t.Fatalf("message=%q, want %q", got, want)
		}
	}
	srv := followServer(t, s)
	st := testkit.OpenStream(t, srv.Client(), srv.URL+waiting+"/events?lang=en")
	if ev, err := st.Wait(200 * time.Millisecond); err == nil {
		t.Fatalf("a lecture with no move sent %+v, want nothing until its first", ev)
	}
	testkit.MustStatus(t, testkit.Get(t, s, "/follow/"+newRunID()+"?lang=xx"), http.StatusBadRequest)
}

// mustFrameEvent fails unless ev is version v of the follower's #demo,
// showing frame f in lang.
func mustFrameEvent(tb testing.TB, ev testkit.Event, v int, f demo.Frame, lang string) *goquery.Document {
	tb.Helper()
	if ev.Event != "" || ev.ID != strconv.Itoa(v) {
		tb.Fatalf("event %q id %q, want a message with id %d", ev.Event, ev.ID, v)
	}
	doc := testkit.Parse(tb, []byte(ev.Data))
	if got, want := doc.Find("#demo").AttrOr("data-version", ""), strconv.Itoa(v); got != want {
		tb.Fatalf("#demo data-version=%q, want %q", got, want)
	}
	mustFollowShow(tb, doc, f, lang)
	return doc
}

// followServer serves s over a real connection, and ends every stream before
// the server closes (httptest.Server.Close waits for open requests).
func followServer(t *testing.T, s *Server) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.Close)
	return srv
}

// A follower connects and gets the lecturer's current frame at once; each
// step after that arrives as the next event, in the follower's language.
func TestFollowStream(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, DefaultConfig())
	srv := followServer(t, s)
	l := startLecture(t, s, true, "en") // frame 2, version 1

	ja := testkit.OpenStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=ja", "Accept-Encoding", "gzip")
	en := testkit.OpenStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en")
	mustFrameEvent(t, ja.Next(t, 5*time.Second), 1, testkit.Frame(t, sc, true, 2), "ja")
	mustFrameEvent(t, en.Next(t, 5*time.Second), 1, testkit.Frame(t, sc, true, 2), "en")
	if got, want := ja.Retry.Load(), "3000"; got != want {
		t.Fatalf("retry=%v, want %q", got, want)
	}
	for v, step := 2, 3; step <= sc.Frames(); v, step = v+1, step+1 {
		l.step(t, s)
		mustFrameEvent(t, ja.Next(t, 5*time.Second), v, testkit.Frame(t, sc, true, step), "ja")
		doc := mustFrameEvent(t, en.Next(t, 5*time.Second), v, testkit.Frame(t, sc, true, step), "en")
		if got, want := doc.Find("#demo").AttrOr("data-title", ""), fmt.Sprintf("Live · %s %d/%d · %s", sc.Title.In("en"), step, sc.Frames(), views.T("en", "site")); got != want {
			t.Fatalf("data-title=%q, want %q", got, want)
		}
		if got, want := strings.TrimSpace(doc.Find("[data-announce]").Text()), fmt.Sprintf("%d / %d.", step, sc.Frames()); !strings.HasPrefix(got, want) {
			t.Fatalf("announcement=%q, want it to start with %q", got, want)
		}
	}
	// The switch and Back are moves too.
	w := click(t, s, "switch", l.p, true)
	testkit.MustStatus(t, w, http.StatusOK)
	mustFrameEvent(t, en.Next(t, 5*time.Second), 7, testkit.Frame(t, sc, false, sc.Frames()), "en")
}

// A follower that lost its connection reconnects with the last event id it
// saw: it gets the current frame at once if it missed a move, and nothing
// until the next move if it did not.
func TestFollowReconnect(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, DefaultConfig())
	srv := followServer(t, s)
	l := startLecture(t, s, true, "en") // version 1
	first := testkit.OpenStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en")
	mustFrameEvent(t, first.Next(t, 5*time.Second), 1, testkit.Frame(t, sc, true, 2), "en")
	first.Close() // the connection drops

	l.step(t, s) // version 2, missed
	l.step(t, s) // version 3, missed
	behind := testkit.OpenStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en", "Last-Event-ID", "1")
	mustFrameEvent(t, behind.Next(t, 5*time.Second), 3, testkit.Frame(t, sc, true, 4), "en")

	upToDate := testkit.OpenStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en", "Last-Event-ID", "3")
	select {
	case ev := <-upToDate.Events:
		t.Fatalf("an up-to-date follower got event id %q on reconnect, want nothing until the next move", ev.ID)
	case <-time.After(200 * time.Millisecond):
	}
	l.step(t, s)
	mustFrameEvent(t, upToDate.Next(t, 5*time.Second), 4, testkit.Frame(t, sc, true, 5), "en")
}

// A lecture hall: 300 followers of one session all get a step, quickly.
func TestFollowManyFollowers(t *testing.T) {
	const n = 300
	sc := gcPause(t)
	s := newTestServer(t, DefaultConfig())
	srv := followServer(t, s)
	l := startLecture(t, s, false, "ja")
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: n}}
	t.Cleanup(client.CloseIdleConnections)

	// Each follower is a goroutine that only reads; what they read is
	// checked afterwards, on the test's own goroutine.
	streams := make([]*testkit.Stream, n)
	firsts := make([]testkit.Event, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range streams {
		wg.Go(func() {
			lang := []string{"en", "ja"}[i%2]
			ticket := ticketCookie + "=" + s.tickets.Issue(l.fid()) // each its follow page's
			streams[i], errs[i] = testkit.DialStream(client, srv.URL+l.follow+"/events?lang="+lang, "Cookie", ticket)
			if errs[i] == nil {
				firsts[i], errs[i] = streams[i].Wait(20 * time.Second)
			}
		})
	}
	wg.Wait()
	for _, st := range streams {
		if st != nil {
			t.Cleanup(st.Close)
		}
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("follower %d: %v", i, err)
		}
		if firsts[i].ID != "1" {
			t.Fatalf("follower %d: first event id %q, want 1", i, firsts[i].ID)
		}
	}
	t.Logf("%d followers connected and got the current frame in %v", n, time.Since(start).Round(time.Millisecond))

	seconds := make([]testkit.Event, n)
	took := make([]time.Duration, n)
	start = time.Now()
	l.step(t, s)
	for i, st := range streams {
		wg.Go(func() {
			seconds[i], errs[i] = st.Wait(10 * time.Second)
			took[i] = time.Since(start)
		})
	}
	wg.Wait()
	var slowest time.Duration
	for i := range streams {
		if errs[i] != nil {
			t.Fatalf("follower %d after the step: %v", i, errs[i])
		}
		mustFrameEvent(t, seconds[i], 2, testkit.Frame(t, sc, false, 3), []string{"en", "ja"}[i%2])
		slowest = max(slowest, took[i])
	}
	t.Logf("all %d followers got the step within %v of the click (an event of %d bytes each)", n, slowest.Round(time.Millisecond), len(seconds[0].Data))

	// They all leave: nothing stays subscribed.
	for _, st := range streams {
		st.Close()
	}
	testkit.Eventually(t, 5*time.Second, "every follower to be unsubscribed", func() bool {
		return s.follow.Streams() == 0
	})
}

// The server's ReadTimeout and WriteTimeout are for ordinary requests; a
// stream outlives both, kept open by its heartbeats, and still delivers.
func TestFollowOutlivesServerTimeouts(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, DefaultConfig())
	s.follow.Heartbeat = 50 * time.Millisecond
	srv := httptest.NewUnstartedServer(s)
	srv.Config.ReadTimeout = 200 * time.Millisecond
	srv.Config.WriteTimeout = 300 * time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.Close)

	l := startLecture(t, s, true, "en")
	st := testkit.OpenStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en")
	mustFrameEvent(t, st.Next(t, 5*time.Second), 1, testkit.Frame(t, sc, true, 2), "en")
	// The stream must live well past WriteTimeout, heartbeats flowing: wait
	// for both, however slowly a busy machine delivers them.
	opened := time.Now()
	testkit.Eventually(t, 30*time.Second, "five heartbeats and five write timeouts", func() bool {
		return st.Comments.Load() >= 5 && time.Since(opened) > 5*srv.Config.WriteTimeout
	})
	l.step(t, s)
	mustFrameEvent(t, st.Next(t, 5*time.Second), 2, testkit.Frame(t, sc, true, 3), "en")
}

// A lecture outlives its run's idle time: the run is dropped, the follow
// page still shows the last frame, and the lecturer's next click (its key
// in the form) reaches the followers on the same stream.
func TestFollowOutlivesIdleRun(t *testing.T) {
	sc := gcPause(t)
	cfg := DefaultConfig()
	// Long enough that the follower is in before the run goes idle, even
	// on a busy machine; the test then waits for the run to go.
	cfg.RunIdle = time.Second
	s := newTestServer(t, cfg)
	srv := followServer(t, s)
	l := startLecture(t, s, true, "en")
	st := testkit.OpenStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en")
	mustFrameEvent(t, st.Next(t, 5*time.Second), 1, testkit.Frame(t, sc, true, 2), "en")
	testkit.Eventually(t, 15*time.Second, "the idle run to go", func() bool { return !s.runs.has(l.p.run) })
	testkit.MustStatus(t, testkit.Get(t, s, l.follow), http.StatusOK)
	l.step(t, s) // checks the follow link is unchanged
	mustFrameEvent(t, st.Next(t, 5*time.Second), 2, testkit.Frame(t, sc, true, 3), "en")
}

// Too many followers: the stream is refused with 503, the page still shows.
func TestFollowFull(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	s.follow.MaxFollowers = 1
	srv := followServer(t, s)
	l := startLecture(t, s, true, "en")
	testkit.OpenStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en").Next(t, 5*time.Second)
	w := httptest.NewRecorder() // not get, which fails any 5xx
	s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, l.follow+"/events?lang=en", nil))
	testkit.MustStatus(t, w, http.StatusServiceUnavailable)
	if got := w.Header().Get("Retry-After"); got == "" {
		t.Fatal("503 without Retry-After")
	}
	if got, want := testkit.TestID(t, testkit.Parse(t, w.Body.Bytes()), "error-message"), views.T("en", "err.follow.full"); got != want {
		t.Fatalf("message=%q, want %q", got, want)
	}
	testkit.MustStatus(t, testkit.Get(t, s, l.follow), http.StatusOK)
}

// With room for one run, a student's run pushes the lecturer's run out of the
// cache. The lecturer's session, being followed, stays; the lecturer's next
// click gets a new run and the session moves to it, so followers never see
// the link break.
func TestFollowSurvivesEviction(t *testing.T) {
	sc := gcPause(t)
	cfg := DefaultConfig()
	cfg.MaxRuns = 1
	s := newTestServer(t, cfg)
	srv := followServer(t, s)
	l := startLecture(t, s, true, "en")
	st := testkit.OpenStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en")
	mustFrameEvent(t, st.Next(t, 5*time.Second), 1, testkit.Frame(t, sc, true, 2), "en")

	student := click(t, s, "step", place{from: 1, on: false, lang: "en"}, true)
	testkit.MustStatus(t, student, http.StatusOK)
	if got := followLink(t, testkit.Parse(t, student.Body.Bytes())); got == l.follow {
		t.Fatalf("the student's run got the lecturer's follow link")
	}
	if s.runs.has(l.p.run) {
		t.Fatal("the lecturer's run is still cached; the test needs it evicted")
	}

	old := l.p.run
	l.step(t, s) // checks the follow link is unchanged
	if l.p.run != old {
		t.Fatal("the lecturer's key changed with the eviction")
	}
	mustFrameEvent(t, st.Next(t, 5*time.Second), 2, testkit.Frame(t, sc, true, 3), "en")
}

// Nothing a follower is shown lets them drive the lecturer's run: the page
// and the events carry no run id and nothing that posts, the follow id is no
// run id, and nothing under /follow/ takes a POST.
func TestFollowerCannotDrive(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, DefaultConfig())
	srv := followServer(t, s)
	l := startLecture(t, s, true, "en")
	l.step(t, s) // frame 3

	page := testkit.Get(t, s, l.follow)
	testkit.MustStatus(t, page, http.StatusOK)
	st := testkit.OpenStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en")
	ev := st.Next(t, 5*time.Second)
	for name, body := range map[string]string{"page": page.Body.String(), "event": ev.Data} {
		if strings.Contains(body, l.p.run) {
			t.Fatalf("the follower's %s contains the lecturer's run id", name)
		}
		mustReadOnly(t, testkit.Parse(t, []byte(body)))
	}
	// Every link a follower is shown leads to a GET of a page with no run.
	testkit.Parse(t, page.Body.Bytes()).Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		u, err := url.Parse(a.AttrOr("href", ""))
		if err != nil || u.Query().Has("run") {
			t.Fatalf("link %q carries a run", a.AttrOr("href", ""))
		}
	})

	// The follow id used as a run key drives a run of its own, in a lecture
	// of its own: the key cannot be worked out from the follow id.
	fid := l.fid()
	if s.runs.has(fid) {
		t.Fatal("the follow id is a live run id")
	}
	w := click(t, s, "step", place{run: fid, from: 1, on: true, lang: "en"}, true)
	testkit.MustStatus(t, w, http.StatusOK)
	doc := testkit.Parse(t, w.Body.Bytes())
	if got := runID(t, doc); got == l.p.run {
		t.Fatalf("a click with the follow id as run went to the lecturer's run %q", got)
	}
	if got := followLink(t, doc); got == l.follow {
		t.Fatalf("a click with the follow id as run moved the lecture %q", got)
	}
	if got, want := liveFrame(t, s, l.p.run), 3; got != want {
		t.Fatalf("the lecturer's run is at frame %d, want %d", got, want)
	}
	for _, target := range []string{l.follow, l.follow + "/events", l.follow + "/step"} {
		w := testkit.Post(t, s, target, url.Values{"from": {"3"}, "fencing": {"on"}}, true)
		if w.Code != http.StatusMethodNotAllowed && w.Code != http.StatusNotFound {
			t.Fatalf("POST %s: %d, want 405 or 404", target, w.Code)
		}
	}
	if got, want := liveFrame(t, s, l.p.run), 3; got != want {
		t.Fatalf("the lecturer's run is at frame %d, want %d", got, want)
	}
	// The follower's own events: still frame 3, the first version of a
	// session its first follower opened there (runs.openSession).
	mustFrameEvent(t, ev, 1, testkit.Frame(t, sc, true, 3), "en")
}

// The browser: a lecturer's tab steps; a follower's tab sees each frame
// without a reload, in its own language; then the follower tries it from
// there and lands on a run of their own at that frame, where Step works.
func TestBrowserFollow(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, DefaultConfig())
	posts := &postLog{}
	srv := httptest.NewServer(posts.wrap(s))
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.Close) // before srv.Close, which waits for open streams

	browserCtx := testkit.Chromium(t, browserBudget)
	env := &browserEnv{browser: browserCtx, base: srv.URL, sc: sc, posts: posts}

	const on = true
	lect := env.newTab(t, true)
	lect.open(on, 1, "en")
	lect.waitFrame(on, 1, "en")
	lect.click("step")
	lect.waitFrame(on, 2, "en")
	link, err := chromedp.Run(lect.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="follow-link"]').href`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(link, srv.URL+"/follow/") {
		t.Fatalf("follow link %q", link)
	}
	lecturerRun := lect.screen().Run

	// The follower reads Japanese; the lecturer speaks English.
	fol := env.newTab(t, true)
	followURL := link + "?lang=ja"
	fol.do(chromedp.Navigate(followURL))
	status := views.T("ja", "follow.status.live")
	following := func(k int) func(screen.Screen) bool {
		return func(s screen.Screen) bool {
			return s.Index == fmt.Sprintf("%d / %d", k, sc.Frames()) && s.Href == followURL
		}
	}
	fol.waitFor("the follower's page at frame 2", following(2))
	waitText(t, fol, `document.getElementById('follow-status').textContent`, status)
	if _, err := chromedp.Run(fol.ctx, chromedp.Evaluate[bool](`window.__notReloaded = true`)); err != nil {
		t.Fatal(err)
	}

	for k := 3; k <= 4; k++ {
		lect.click("step")
		lect.waitFrame(on, k, "en")
		s := fol.waitFor(fmt.Sprintf("the follower to show frame %d", k), following(k))
		want := screen.Want(t, sc, on, k, "ja")
		for _, f := range [][3]string{
			{"holder", s.Holder, want.Holder}, {"token", s.Token, want.Token},
			{"resource-value", s.Value, want.Value}, {"max-token", s.MaxToken, want.MaxToken},
		} {
			if f[1] != f[2] {
				t.Errorf("follower at frame %d: %s=%q, want %q", k, f[0], f[1], f[2])
			}
		}
		waitText(t, fol, `document.title`, fmt.Sprintf("%s · %s %d/%d · %s", views.T("ja", "follow.live"), sc.Title.In("ja"), k, sc.Frames(), views.T("ja", "site")))
		waitText(t, fol, `document.getElementById('announce').textContent.trim().slice(0, 5)`, fmt.Sprintf("%d / %d", k, sc.Frames()))
	}
	if same, err := chromedp.Run(fol.ctx, chromedp.Evaluate[bool](`window.__notReloaded === true`)); err != nil || !same {
		t.Fatalf("the follower's page was reloaded (err %v); want the frame swapped in place", err)
	}

	// Try it from frame 4: the follower's own run, in the follower's language.
	fol.submit("try")
	fol.waitFrame(on, 4, "ja")
	fol.click("step")
	s5 := fol.waitFrame(on, 5, "ja")
	if s5.Run == "" || s5.Run == lecturerRun {
		t.Fatalf("the follower's run=%q, want a run of their own (the lecturer's is %q)", s5.Run, lecturerRun)
	}
	if got, want := liveFrame(t, s, lecturerRun), 4; got != want {
		t.Fatalf("the lecturer's run moved to frame %d when the follower stepped, want %d", got, want)
	}
}

// waitText waits until a JavaScript expression in tab b gives want.
func waitText(t *testing.T, b *tab, expr, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitBudget)
	defer cancel()
	var got string
	for {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err == nil && v == want {
			return
		}
		got = v
		select {
		case <-ctx.Done():
			t.Fatalf("%s=%q, want %q", expr, got, want)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// A graceful shutdown fails /healthz for DrainWait while still answering
// pages, so a load balancer stops sending visitors first; then it ends every
// stream without an "end" event (followers reconnect, to another replica or
// to this server once it is back), so Shutdown need not wait out its timeout
// for streams that never go idle.
func TestFollowShutdown(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DrainWait = 300 * time.Millisecond
	s := newTestServer(t, cfg)
	hs := s.HTTPServer("127.0.0.1:0")
	srv := httptest.NewUnstartedServer(s)
	srv.Config = hs
	srv.Start()
	t.Cleanup(srv.Close)

	l := startLecture(t, s, true, "en")
	st := testkit.OpenStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en")
	st.Next(t, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- s.Shutdown(ctx, hs) }()
	testkit.Eventually(t, time.Second, "/healthz to fail while draining", func() bool {
		resp, err := srv.Client().Get(srv.URL + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusServiceUnavailable
	})
	if resp, err := srv.Client().Get(srv.URL + l.follow); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a page while draining: %v %v, want it answered", resp, err)
	} else {
		resp.Body.Close()
	}
	if err := <-done; err != nil {
		t.Fatalf("Shutdown with a follower connected: %v after %v", err, time.Since(start))
	}
	if ev, err := st.Wait(time.Second); err == nil {
		t.Fatalf("event %q at shutdown, want the stream closed without one", ev.Event)
	}
}

// A restart or a deploy: the new server has never seen the lecture. The
// followers' EventSource reconnects (with the last event id it saw) and
// waits; the lecturer's next click, carrying the run key, reaches them under
// the same follow link, and the follow page answers again.
func TestFollowSurvivesRestart(t *testing.T) {
	sc := gcPause(t)
	before := newTestServer(t, DefaultConfig())
	l := startLecture(t, before, true, "en")
	l.step(t, before) // frame 3, version 2

	after := newTestServer(t, DefaultConfig()) // "restarted": nothing kept
	srv := followServer(t, after)
	st := testkit.OpenStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en", "Last-Event-ID", "2")
	if ev, err := st.Wait(200 * time.Millisecond); err == nil {
		t.Fatalf("before the lecturer's next click: %+v, want nothing", ev)
	}
	l.step(t, after) // checks the follow link is unchanged
	ev := st.Next(t, 5*time.Second)
	mustFollowShow(t, testkit.Parse(t, []byte(ev.Data)), testkit.Frame(t, sc, true, 4), "en")
	testkit.MustStatus(t, testkit.Get(t, after, l.follow), http.StatusOK)
}

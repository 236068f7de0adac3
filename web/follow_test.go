package web

// The follow-along tests: the broker alone (latest wins, publishing never
// waits, the limits), then the handlers through httptest with a plain HTTP
// client reading the event stream line by line, then a real Chromium with a
// lecturer's tab and a follower's tab.

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
)

// The broker.

// testBroker is a broker whose "drawing" of a move is its version and frame
// as text, counting how often it draws.
func testBroker(tb testing.TB, sessions int, idle time.Duration) (*broker, *atomic.Int64) {
	tb.Helper()
	var draws atomic.Int64
	b := newBroker(sessions, idle, func(fid string, at followFrame, version uint64, lang string) ([]byte, error) {
		draws.Add(1)
		return fmt.Appendf(nil, "v%d step %d %s", version, at.step, lang), nil
	})
	tb.Cleanup(b.close)
	return b, &draws
}

func frameAt(sc *demo.Scenario, step int) followFrame {
	return followFrame{sc: sc, on: true, step: step}
}

// woken reports whether a follower has been told of something newer.
func woken(f *follower) bool {
	select {
	case <-f.wake:
		return true
	default:
		return false
	}
}

// A follower that was busy while the lecturer made three moves wakes once and
// finds only the latest: nothing queues up behind a slow follower.
func TestBrokerLatestWins(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10, time.Hour)
	fid := b.publish("", "run1", frameAt(sc, 2))
	sess, f, err := b.subscribe(fid)
	if err != nil {
		t.Fatal(err)
	}
	for step := 3; step <= 5; step++ {
		if got := b.publish("run1", "run1", frameAt(sc, step)); got != fid {
			t.Fatalf("publish returned follow id %q, want the run's %q", got, fid)
		}
	}
	if !woken(f) {
		t.Fatal("follower not woken by three moves")
	}
	if woken(f) {
		t.Fatal("follower woken twice for three moves, want once: the wake-up holds one signal")
	}
	r, err := b.event(sess, "en")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(r.event), "v4 step 5 en"; got != want {
		t.Fatalf("event=%q, want %q (the latest of versions 1 to 4)", got, want)
	}
}

// The same frame again (a double click's duplicate) is not a new version.
func TestBrokerSameFrameSameVersion(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10, time.Hour)
	fid := b.publish("", "run1", frameAt(sc, 2))
	b.publish("run1", "run1", frameAt(sc, 2))
	if _, v, _ := b.current(fid); v != 1 {
		t.Fatalf("version=%d after the same frame twice, want 1", v)
	}
}

// A follower that never reads does not hold up the lecturer: a thousand
// moves are published at once.
func TestBrokerPublishNeverBlocks(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10, time.Hour)
	fid := b.publish("", "run1", frameAt(sc, 1))
	for range 3 {
		if _, _, err := b.subscribe(fid); err != nil { // stuck: never reads
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 1000 {
			b.publish("run1", "run1", frameAt(sc, 1+i%sc.Frames()))
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("1000 publishes with stuck followers did not finish in 5s")
	}
	if _, v, _ := b.current(fid); v != 1000 {
		t.Fatalf("version=%d, want 1000", v)
	}
}

// However many followers ask at once, a version is drawn once per language.
func TestBrokerDrawsOncePerLanguage(t *testing.T) {
	sc := gcPause(t)
	b, draws := testBroker(t, 10, time.Hour)
	fid := b.publish("", "run1", frameAt(sc, 3))
	sess, _, err := b.subscribe(fid)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() {
			lang := []string{"en", "ja"}[i%2]
			if r, err := b.event(sess, lang); err != nil || !strings.HasSuffix(string(r.event), lang) {
				t.Errorf("event(%s)=%q, %v", lang, r.event, err)
			}
		})
	}
	wg.Wait()
	if got, want := draws.Load(), int64(2); got != want {
		t.Fatalf("%d drawings for 100 followers in 2 languages, want %d", got, want)
	}
	b.publish("run1", "run1", frameAt(sc, 4))
	if _, err := b.event(sess, "en"); err != nil {
		t.Fatal(err)
	}
	if got, want := draws.Load(), int64(3); got != want {
		t.Fatalf("%d drawings after a new version, want %d", got, want)
	}
}

// Sessions are bounded. At the limit, a new run takes the place of the
// least recently moved session nobody follows; a followed session stays, and
// when every session is followed the new run goes without a link.
func TestBrokerBoundedSessions(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 3, time.Hour)
	ids := map[string]string{}
	for _, run := range []string{"r1", "r2", "r3"} {
		ids[run] = b.publish("", run, frameAt(sc, 2))
	}
	watched, _, err := b.subscribe(ids["r1"]) // r1 is the oldest, but followed
	if err != nil {
		t.Fatal(err)
	}
	ids["r4"] = b.publish("", "r4", frameAt(sc, 2))
	if got, want := b.len(), 3; got != want {
		t.Fatalf("%d sessions, want at most %d", got, want)
	}
	if _, _, ok := b.current(ids["r2"]); ok {
		t.Fatal("r2's session (oldest unwatched) is still there")
	}
	if _, _, ok := b.current(ids["r1"]); !ok {
		t.Fatal("r1's session was evicted although it has a follower")
	}
	for _, run := range []string{"r3", "r4"} {
		if _, _, err := b.subscribe(ids[run]); err != nil {
			t.Fatal(err)
		}
	}
	if got := b.publish("", "r5", frameAt(sc, 2)); got != "" {
		t.Fatalf("with every session followed, a new run got follow id %q, want none", got)
	}
	select {
	case <-watched.done:
		t.Fatal("a followed session ended to make room")
	default:
	}
}

// Followers are bounded per session and across sessions.
func TestBrokerBoundedFollowers(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10, time.Hour)
	b.maxFollowers, b.maxStreams = 2, 3
	one := b.publish("", "r1", frameAt(sc, 2))
	two := b.publish("", "r2", frameAt(sc, 2))
	s1, f1, err := b.subscribe(one)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.subscribe(one); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.subscribe(one); err != errFollowFull {
		t.Fatalf("third follower of one session: err=%v, want %v", err, errFollowFull)
	}
	if _, _, err := b.subscribe(two); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.subscribe(two); err != errFollowFull {
		t.Fatalf("fourth follower on the server: err=%v, want %v", err, errFollowFull)
	}
	b.unsubscribe(s1, f1)
	if _, _, err := b.subscribe(two); err != nil {
		t.Fatalf("after one left: %v", err)
	}
	if _, _, err := b.subscribe("nope"); err != errFollowGone {
		t.Fatalf("unknown id: err=%v, want %v", err, errFollowGone)
	}
}

// A session ends when its run has been idle as long as the run cache keeps
// runs; its followers are told.
func TestBrokerIdleExpiry(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10, 100*time.Millisecond)
	fid := b.publish("", "r1", frameAt(sc, 2))
	sess, _, err := b.subscribe(fid)
	if err != nil {
		t.Fatal(err)
	}
	// Moves keep it alive past its idle time.
	for range 4 {
		time.Sleep(40 * time.Millisecond)
		b.publish("r1", "r1", frameAt(sc, 3))
	}
	if _, _, ok := b.current(fid); !ok {
		t.Fatal("a session that was moved every 40ms expired with idle 100ms")
	}
	select {
	case <-sess.done:
	case <-time.After(2 * time.Second):
		t.Fatal("session not ended 2s after its last move, with idle 100ms")
	}
	if _, _, ok := b.current(fid); ok {
		t.Fatal("an ended session is still found")
	}
	if got := b.link("r1"); got != "" {
		t.Fatalf("link of an expired run=%q, want none", got)
	}
}

// When the run cache lost the lecturer's run and gave them a new one, the
// session moves to the new run: the students' link keeps working.
func TestBrokerFollowsNewRun(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10, time.Hour)
	fid := b.publish("", "old", frameAt(sc, 2))
	if got := b.publish("old", "new", frameAt(sc, 3)); got != fid {
		t.Fatalf("follow id after the run was replaced=%q, want %q", got, fid)
	}
	if got, want := b.link("new"), followPath(fid); got != want {
		t.Fatalf("link(new)=%q, want %q", got, want)
	}
	if got := b.link("old"); got != "" {
		t.Fatalf("link(old)=%q, want none", got)
	}
}

// The handlers.

var followLinkPattern = regexp.MustCompile(`^/follow/[0-9a-f]{32}$`)

// followLink returns the share box's follow link.
func followLink(tb testing.TB, doc *goquery.Document) string {
	tb.Helper()
	link := attr(tb, doc, "follow-link", "href")
	if !followLinkPattern.MatchString(link) {
		tb.Fatalf("follow link %q, want %s", link, followLinkPattern)
	}
	if got, want := attr(tb, doc, "follow-qr", "src"), link+"/qr.svg"; got != want {
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
	doc := parse(t, get(t, h, gcPauseURL(on, 1, lang)).Body.Bytes())
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
	mustStatus(t, w, http.StatusOK)
	doc := parse(t, w.Body.Bytes())
	mustShow(t, doc, modelFrame(t, gcPause(t), l.p.on, l.p.from+1), l.p.lang)
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
		Index:    testid(tb, doc, "step-index"),
		Pressed:  strconv.FormatBool(attr(tb, doc, "follow-switch", "data-on") == "on"),
		Holder:   testid(tb, doc, "holder"),
		Token:    testid(tb, doc, "token"),
		Expiry:   testid(tb, doc, "lease-expiry"),
		Now:      testid(tb, doc, "now"),
		Value:    testid(tb, doc, "resource-value"),
		MaxToken: testid(tb, doc, "max-token"),
		Rejected: testid(tb, doc, "rejected"),
		Fenced:   doc.Find("#h-res .badge").HasClass("on"),
	}
	if want := expect(f, lang); got != want {
		tb.Fatalf("follower sees frame %d (fencing %s, %s) as\n %+v\nwant\n %+v", f.Index, onOff(f.On), lang, got, want)
	}
	if got, want := attr(tb, doc, "try", "href"), gcPauseURL(f.On, f.Index, lang); got != want {
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
	s := newTestServer(t, defaultConfig())
	l := startLecture(t, s, false, "en")
	l.step(t, s) // frame 3

	// Without JavaScript the lecturer's page is reached by a redirect that
	// carries the run; it shows the same link.
	w := click(t, s, "step", l.p, false)
	mustStatus(t, w, http.StatusSeeOther)
	doc := parse(t, get(t, s, w.Header().Get("Location")).Body.Bytes())
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
			w := get(t, s, l.follow+tc.query, "Accept-Language", tc.acceptLang)
			mustStatus(t, w, http.StatusOK)
			if got, want := w.Header().Get("Cache-Control"), "no-store"; got != want {
				t.Fatalf("Cache-Control=%q, want %q", got, want)
			}
			doc := parse(t, w.Body.Bytes())
			if got := doc.Find("html").AttrOr("lang", ""); got != tc.want {
				t.Fatalf("html lang=%q, want %q", got, tc.want)
			}
			mustFollowShow(t, doc, modelFrame(t, sc, false, 4), tc.want)
			if got, want := doc.Find("#follow").AttrOr("data-events", ""), l.follow+"/events?lang="+tc.want; got != want {
				t.Fatalf("stream=%q, want %q", got, want)
			}
			if got, want := attr(t, doc, "reload", "href"), l.follow+"?lang="+tc.want; got != want {
				t.Fatalf("reload=%q, want %q", got, want)
			}
			if got, want := attr(t, doc, "lang", "href"), l.follow+"?lang="+otherLang(tc.want); got != want {
				t.Fatalf("language switch=%q, want %q", got, want)
			}
			if got, want := testid(t, doc, "follow-status"), views.T(tc.want, "follow.status.nojs"); got != want {
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
			if got := get(t, s, scripts[0]); got.Code != http.StatusOK || !strings.Contains(got.Header().Get("Content-Type"), "javascript") {
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
	s := newTestServer(t, defaultConfig())
	l := startLecture(t, s, true, "en")
	w := get(t, s, l.follow+"/qr.svg")
	mustStatus(t, w, http.StatusOK)
	if got := w.Header().Get("Content-Type"); got != "image/svg+xml" {
		t.Fatalf("Content-Type=%q", got)
	}
	if !strings.HasPrefix(w.Body.String(), "<svg") {
		t.Fatalf("body is not an SVG: %.60s", w.Body.String())
	}
	mustStatus(t, get(t, s, "/follow/"+newRunID()+"/qr.svg"), http.StatusNotFound)
}

// An unknown follow id (a restart, an eviction, a typo) is a 404 page that
// says the lecture is no longer live and offers the scenario list, never a
// 500; so are its stream and its QR code.
func TestFollowUnknown(t *testing.T) {
	s := newTestServer(t, defaultConfig())
	for _, target := range []string{"/follow/" + newRunID(), "/follow/nope", "/follow/" + strings.Repeat("A", 32)} {
		for _, lang := range []string{"en", "ja"} {
			t.Run(target+"/"+lang, func(t *testing.T) {
				w := get(t, s, target, "Accept-Language", lang)
				mustStatus(t, w, http.StatusNotFound)
				doc := parse(t, w.Body.Bytes())
				if got, want := testid(t, doc, "error-message"), views.T(lang, "err.follow.gone"); got != want {
					t.Fatalf("message=%q, want %q", got, want)
				}
				if got, want := attr(t, doc, "continue", "href"), "/scenarios?lang="+lang; got != want {
					t.Fatalf("continue=%q, want the scenario list %q", got, want)
				}
				if doc.Find(`a[href^="/scenarios/gc-pause"]`).Length() == 0 {
					t.Fatal("the page lists no scenarios")
				}
				w = get(t, s, target+"/events?lang="+lang)
				mustStatus(t, w, http.StatusNotFound)
				if ct := w.Header().Get("Content-Type"); strings.HasPrefix(ct, "text/event-stream") {
					t.Fatalf("stream of an unknown id answered %q; EventSource must see a failure", ct)
				}
			})
		}
	}
	mustStatus(t, get(t, s, "/follow/"+newRunID()+"?lang=xx"), http.StatusBadRequest)
}

// sseEvent is one event of a stream as a client reads it.
type sseMessage struct {
	id, event, data string
}

// stream reads a text/event-stream response line by line, as EventSource
// does, and hands over its events.
type stream struct {
	resp     *http.Response
	events   chan sseMessage
	comments atomic.Int64 // heartbeats seen
	retry    atomic.Value // the retry field, as sent
	cancel   context.CancelFunc
}

// openStream connects to a follow stream and fails unless it answers as an
// event stream should. header is "Name", "value" pairs.
func openStream(tb testing.TB, client *http.Client, target string, header ...string) *stream {
	tb.Helper()
	st, err := dialStream(client, target, header...)
	if st != nil {
		tb.Cleanup(st.close)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// dialStream is openStream for any goroutine: it returns its failure.
func dialStream(client *http.Client, target string, header ...string) (*stream, error) {
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("GET %s: %v", target, err)
	}
	st := &stream{resp: resp, events: make(chan sseMessage, 8), cancel: cancel}
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("GET %s: %s", target, resp.Status)
	}
	for name, want := range map[string]string{
		"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Content-Encoding": "",
	} {
		if got := resp.Header.Get(name); got != want {
			return st, fmt.Errorf("GET %s: %s=%q, want %q", target, name, got, want)
		}
	}
	go st.read()
	return st, nil
}

// close hangs up, as a follower closing the tab does.
func (st *stream) close() {
	st.cancel()
	st.resp.Body.Close()
}

func (st *stream) read() {
	defer close(st.events)
	sc := bufio.NewScanner(st.resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var ev sseMessage
	var data []string
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if data != nil {
				ev.data = strings.Join(data, "\n")
				st.events <- ev
			}
			ev, data = sseMessage{}, nil
			continue
		}
		if strings.HasPrefix(line, ":") {
			st.comments.Add(1)
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.id = value
		case "event":
			ev.event = value
		case "data":
			data = append(data, value)
		case "retry":
			st.retry.Store(value)
		}
	}
}

// next waits for the stream's next event.
func (st *stream) next(tb testing.TB, within time.Duration) sseMessage {
	tb.Helper()
	ev, err := st.wait(within)
	if err != nil {
		tb.Fatal(err)
	}
	return ev
}

// wait is next for any goroutine.
func (st *stream) wait(within time.Duration) (sseMessage, error) {
	select {
	case ev, ok := <-st.events:
		if !ok {
			return ev, fmt.Errorf("the stream ended")
		}
		return ev, nil
	case <-time.After(within):
		return sseMessage{}, fmt.Errorf("no event within %v", within)
	}
}

// mustFrameEvent fails unless ev is version v of the follower's #demo,
// showing frame f in lang.
func mustFrameEvent(tb testing.TB, ev sseMessage, v int, f demo.Frame, lang string) *goquery.Document {
	tb.Helper()
	if ev.event != "" || ev.id != strconv.Itoa(v) {
		tb.Fatalf("event %q id %q, want a message with id %d", ev.event, ev.id, v)
	}
	doc := parse(tb, []byte(ev.data))
	if got, want := doc.Find("#demo").AttrOr("data-version", ""), strconv.Itoa(v); got != want {
		tb.Fatalf("#demo data-version=%q, want %q", got, want)
	}
	mustFollowShow(tb, doc, f, lang)
	return doc
}

// followServer serves s over a real connection, and ends every stream before
// the server closes (httptest.Server.Close waits for open requests).
func followServer(t *testing.T, s *server) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.close)
	return srv
}

// A follower connects and gets the lecturer's current frame at once; each
// step after that arrives as the next event, in the follower's language.
func TestFollowStream(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, defaultConfig())
	srv := followServer(t, s)
	l := startLecture(t, s, true, "en") // frame 2, version 1

	ja := openStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=ja", "Accept-Encoding", "gzip")
	en := openStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en")
	mustFrameEvent(t, ja.next(t, 5*time.Second), 1, modelFrame(t, sc, true, 2), "ja")
	mustFrameEvent(t, en.next(t, 5*time.Second), 1, modelFrame(t, sc, true, 2), "en")
	if got, want := ja.retry.Load(), "3000"; got != want {
		t.Fatalf("retry=%v, want %q", got, want)
	}
	for v, step := 2, 3; step <= sc.Frames(); v, step = v+1, step+1 {
		l.step(t, s)
		mustFrameEvent(t, ja.next(t, 5*time.Second), v, modelFrame(t, sc, true, step), "ja")
		doc := mustFrameEvent(t, en.next(t, 5*time.Second), v, modelFrame(t, sc, true, step), "en")
		if got, want := doc.Find("#demo").AttrOr("data-title", ""), fmt.Sprintf("Live · %s %d/%d · %s", sc.Title.In("en"), step, sc.Frames(), views.T("en", "site")); got != want {
			t.Fatalf("data-title=%q, want %q", got, want)
		}
		if got, want := strings.TrimSpace(doc.Find("[data-announce]").Text()), fmt.Sprintf("%d / %d.", step, sc.Frames()); !strings.HasPrefix(got, want) {
			t.Fatalf("announcement=%q, want it to start with %q", got, want)
		}
	}
	// The switch and Back are moves too.
	w := click(t, s, "switch", l.p, true)
	mustStatus(t, w, http.StatusOK)
	mustFrameEvent(t, en.next(t, 5*time.Second), 7, modelFrame(t, sc, false, sc.Frames()), "en")
}

// A follower that lost its connection reconnects with the last event id it
// saw: it gets the current frame at once if it missed a move, and nothing
// until the next move if it did not.
func TestFollowReconnect(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, defaultConfig())
	srv := followServer(t, s)
	l := startLecture(t, s, true, "en") // version 1
	first := openStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en")
	mustFrameEvent(t, first.next(t, 5*time.Second), 1, modelFrame(t, sc, true, 2), "en")
	first.close() // the connection drops

	l.step(t, s) // version 2, missed
	l.step(t, s) // version 3, missed
	behind := openStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en", "Last-Event-ID", "1")
	mustFrameEvent(t, behind.next(t, 5*time.Second), 3, modelFrame(t, sc, true, 4), "en")

	upToDate := openStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en", "Last-Event-ID", "3")
	select {
	case ev := <-upToDate.events:
		t.Fatalf("an up-to-date follower got event id %q on reconnect, want nothing until the next move", ev.id)
	case <-time.After(200 * time.Millisecond):
	}
	l.step(t, s)
	mustFrameEvent(t, upToDate.next(t, 5*time.Second), 4, modelFrame(t, sc, true, 5), "en")
}

// A lecture hall: 300 followers of one session all get a step, quickly.
func TestFollowManyFollowers(t *testing.T) {
	const n = 300
	sc := gcPause(t)
	s := newTestServer(t, defaultConfig())
	srv := followServer(t, s)
	l := startLecture(t, s, false, "ja")
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: n}}
	t.Cleanup(client.CloseIdleConnections)

	// Each follower is a goroutine that only reads; what they read is
	// checked afterwards, on the test's own goroutine.
	streams := make([]*stream, n)
	firsts := make([]sseMessage, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range streams {
		wg.Go(func() {
			lang := []string{"en", "ja"}[i%2]
			streams[i], errs[i] = dialStream(client, srv.URL+l.follow+"/events?lang="+lang)
			if errs[i] == nil {
				firsts[i], errs[i] = streams[i].wait(20 * time.Second)
			}
		})
	}
	wg.Wait()
	for _, st := range streams {
		if st != nil {
			t.Cleanup(st.close)
		}
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("follower %d: %v", i, err)
		}
		if firsts[i].id != "1" {
			t.Fatalf("follower %d: first event id %q, want 1", i, firsts[i].id)
		}
	}
	t.Logf("%d followers connected and got the current frame in %v", n, time.Since(start).Round(time.Millisecond))

	seconds := make([]sseMessage, n)
	took := make([]time.Duration, n)
	start = time.Now()
	l.step(t, s)
	for i, st := range streams {
		wg.Go(func() {
			seconds[i], errs[i] = st.wait(10 * time.Second)
			took[i] = time.Since(start)
		})
	}
	wg.Wait()
	var slowest time.Duration
	for i := range streams {
		if errs[i] != nil {
			t.Fatalf("follower %d after the step: %v", i, errs[i])
		}
		mustFrameEvent(t, seconds[i], 2, modelFrame(t, sc, false, 3), []string{"en", "ja"}[i%2])
		slowest = max(slowest, took[i])
	}
	t.Logf("all %d followers got the step within %v of the click (an event of %d bytes each)", n, slowest.Round(time.Millisecond), len(seconds[0].data))

	// They all leave: nothing stays subscribed.
	for _, st := range streams {
		st.close()
	}
	waitFor(t, "every follower to be unsubscribed", func() bool {
		s.follow.mu.Lock()
		defer s.follow.mu.Unlock()
		return s.follow.streams == 0
	})
}

// waitFor polls ok for up to 5 s.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 5s for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The server's ReadTimeout and WriteTimeout are for ordinary requests; a
// stream outlives both, kept open by its heartbeats, and still delivers.
func TestFollowOutlivesServerTimeouts(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, defaultConfig())
	s.follow.heartbeat = 50 * time.Millisecond
	srv := httptest.NewUnstartedServer(s)
	srv.Config.ReadTimeout = 200 * time.Millisecond
	srv.Config.WriteTimeout = 300 * time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.close)

	l := startLecture(t, s, true, "en")
	st := openStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en")
	mustFrameEvent(t, st.next(t, 5*time.Second), 1, modelFrame(t, sc, true, 2), "en")
	time.Sleep(1 * time.Second) // five times WriteTimeout
	if got := st.comments.Load(); got < 5 {
		t.Fatalf("%d heartbeats in 1s at one per 50ms, want at least 5", got)
	}
	l.step(t, s)
	mustFrameEvent(t, st.next(t, 5*time.Second), 2, modelFrame(t, sc, true, 3), "en")
}

// When the run goes away (idle), its followers are told and the stream ends;
// the follow page is then a 404.
func TestFollowEnds(t *testing.T) {
	cfg := defaultConfig()
	cfg.RunIdle = time.Second
	s := newTestServer(t, cfg)
	srv := followServer(t, s)
	l := startLecture(t, s, true, "en")
	st := openStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en")
	st.next(t, 5*time.Second)
	if ev := st.next(t, 5*time.Second); ev.event != "end" {
		t.Fatalf("event %q after the run went idle, want end", ev.event)
	}
	select {
	case _, ok := <-st.events:
		if ok {
			t.Fatal("the stream went on after its end event")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the stream did not close after its end event")
	}
	mustStatus(t, get(t, s, l.follow), http.StatusNotFound)
	if got := s.follow.len(); got != 0 {
		t.Fatalf("%d sessions left, want 0", got)
	}
}

// Too many followers: the stream is refused with 503, the page still shows.
func TestFollowFull(t *testing.T) {
	s := newTestServer(t, defaultConfig())
	s.follow.maxFollowers = 1
	srv := followServer(t, s)
	l := startLecture(t, s, true, "en")
	openStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en").next(t, 5*time.Second)
	w := httptest.NewRecorder() // not get, which fails any 5xx
	s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, l.follow+"/events?lang=en", nil))
	mustStatus(t, w, http.StatusServiceUnavailable)
	if got := w.Header().Get("Retry-After"); got == "" {
		t.Fatal("503 without Retry-After")
	}
	if got, want := testid(t, parse(t, w.Body.Bytes()), "error-message"), views.T("en", "err.follow.full"); got != want {
		t.Fatalf("message=%q, want %q", got, want)
	}
	mustStatus(t, get(t, s, l.follow), http.StatusOK)
}

// With room for one run, a student's run pushes the lecturer's run out of the
// cache. The lecturer's session, being followed, stays; the lecturer's next
// click gets a new run and the session moves to it, so followers never see
// the link break.
func TestFollowSurvivesEviction(t *testing.T) {
	sc := gcPause(t)
	cfg := defaultConfig()
	cfg.MaxRuns = 1
	s := newTestServer(t, cfg)
	srv := followServer(t, s)
	l := startLecture(t, s, true, "en")
	st := openStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en")
	mustFrameEvent(t, st.next(t, 5*time.Second), 1, modelFrame(t, sc, true, 2), "en")

	student := click(t, s, "step", place{from: 1, on: false, lang: "en"}, true)
	mustStatus(t, student, http.StatusOK)
	if n := parse(t, student.Body.Bytes()).Find(`[data-testid="follow-link"]`).Length(); n != 0 {
		t.Fatalf("the student's run got a follow link although the only session is followed")
	}
	if s.runs.has(l.p.run) {
		t.Fatal("the lecturer's run is still cached; the test needs it evicted")
	}

	old := l.p.run
	l.step(t, s) // checks the follow link is unchanged
	if l.p.run == old {
		t.Fatal("the lecturer kept an evicted run id")
	}
	mustFrameEvent(t, st.next(t, 5*time.Second), 2, modelFrame(t, sc, true, 3), "en")
}

// Nothing a follower is shown lets them drive the lecturer's run: the page
// and the events carry no run id and nothing that posts, the follow id is no
// run id, and nothing under /follow/ takes a POST.
func TestFollowerCannotDrive(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, defaultConfig())
	srv := followServer(t, s)
	l := startLecture(t, s, true, "en")
	l.step(t, s) // frame 3

	page := get(t, s, l.follow)
	mustStatus(t, page, http.StatusOK)
	st := openStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en")
	ev := st.next(t, 5*time.Second)
	for name, body := range map[string]string{"page": page.Body.String(), "event": ev.data} {
		if strings.Contains(body, l.p.run) {
			t.Fatalf("the follower's %s contains the lecturer's run id", name)
		}
		mustReadOnly(t, parse(t, []byte(body)))
	}
	// Every link a follower is shown leads to a GET of a page with no run.
	parse(t, page.Body.Bytes()).Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		u, err := url.Parse(a.AttrOr("href", ""))
		if err != nil || u.Query().Has("run") {
			t.Fatalf("link %q carries a run", a.AttrOr("href", ""))
		}
	})

	// The follow id used as a run id drives nothing but a new run.
	fid := l.fid()
	if s.runs.has(fid) {
		t.Fatal("the follow id is a live run id")
	}
	w := click(t, s, "step", place{run: fid, from: 1, on: true, lang: "en"}, true)
	mustStatus(t, w, http.StatusOK)
	if got := runID(t, parse(t, w.Body.Bytes())); got == l.p.run || got == fid {
		t.Fatalf("a click with the follow id as run went to run %q", got)
	}
	if got, want := liveFrame(t, s, l.p.run), 3; got != want {
		t.Fatalf("the lecturer's run is at frame %d, want %d", got, want)
	}
	for _, target := range []string{l.follow, l.follow + "/events", l.follow + "/step"} {
		w := post(t, s, target, url.Values{"from": {"3"}, "fencing": {"on"}}, true)
		if w.Code != http.StatusMethodNotAllowed && w.Code != http.StatusNotFound {
			t.Fatalf("POST %s: %d, want 405 or 404", target, w.Code)
		}
	}
	if got, want := liveFrame(t, s, l.p.run), 3; got != want {
		t.Fatalf("the lecturer's run is at frame %d, want %d", got, want)
	}
	// The follower's own events: still frame 3.
	mustFrameEvent(t, ev, 2, modelFrame(t, sc, true, 3), "en")
}

// The browser: a lecturer's tab steps; a follower's tab sees each frame
// without a reload, in its own language; then the follower tries it from
// there and lands on a run of their own at that frame, where Step works.
func TestBrowserFollow(t *testing.T) {
	exe := findBrowser(t)
	sc := gcPause(t)
	s := newTestServer(t, defaultConfig())
	posts := &postLog{}
	srv := httptest.NewServer(posts.wrap(s))
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.close) // before srv.Close, which waits for open streams

	browserCtx := launchChromium(t, exe, browserBudget)
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
	following := func(k int) func(screen) bool {
		return func(s screen) bool {
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
		want := wantScreen(t, sc, on, k, "ja")
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

// A server shutting down ends every stream with an "end" event, so Shutdown
// need not wait out its timeout for streams that never go idle. It takes
// hs.RegisterOnShutdown(srv.follow.close) next to httpServer in main.go;
// without it Shutdown waits its full 10 s while followers are connected.
func TestFollowShutdown(t *testing.T) {
	s := newTestServer(t, defaultConfig())
	hs := httpServer("127.0.0.1:0", s, s.log)
	hs.RegisterOnShutdown(s.follow.close)
	srv := httptest.NewUnstartedServer(s)
	srv.Config = hs
	srv.Start()
	t.Cleanup(srv.Close)

	l := startLecture(t, s, true, "en")
	st := openStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en")
	st.next(t, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := hs.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with a follower connected: %v after %v", err, time.Since(start))
	}
	if ev := st.next(t, time.Second); ev.event != "end" {
		t.Fatalf("event %q at shutdown, want end", ev.event)
	}
}

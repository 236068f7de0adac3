package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
)

// pressOption submits the question's form on doc with the option guess
// pressed, as a browser sends it: the form's fields and the pressed
// button's name and value.
func pressOption(tb testing.TB, h http.Handler, doc *goquery.Document, guess string, htmx bool) *httptest.ResponseRecorder {
	tb.Helper()
	btn := doc.Find(`[data-testid="guess-` + guess + `"]`)
	form := btn.Closest("form")
	if btn.Length() != 1 || form.Length() != 1 {
		tb.Fatalf("no button for the option %q in a form", guess)
	}
	v := url.Values{}
	form.Find("input[name]").Each(func(_ int, in *goquery.Selection) {
		v.Add(in.AttrOr("name", ""), in.AttrOr("value", ""))
	})
	v.Set(btn.AttrOr("name", ""), btn.AttrOr("value", ""))
	target := form.AttrOr("action", "")
	if htmx {
		target = form.AttrOr("hx-post", target)
	}
	return testkit.Post(tb, h, target, v, htmx)
}

// A reader alone: the question stands on the frame before its move, each
// option plays the move, and the next frame marks the answer against the
// model's, in both positions and languages, with and without htmx.
func TestPredictAlone(t *testing.T) {
	s := newTestServer(t, Config{})
	for _, tc := range []struct {
		on, lang, guess string
		htmx, right     bool
		mark            string
	}{
		{"on", "en", "rejected", false, true, "Right ✓"},
		{"on", "en", "accepted", true, false, "Wrong ✗"},
		{"off", "ja", "accepted", false, true, "正解 ✓"},
		{"off", "ja", "write-skipped", true, false, "不正解 ✗"},
	} {
		t.Run(tc.on+"/"+tc.lang+"/"+tc.guess, func(t *testing.T) {
			page := testkit.Get(t, s, "/scenarios/gc-pause?fencing="+tc.on+"&step=6&lang="+tc.lang)
			testkit.MustStatus(t, page, http.StatusOK)
			doc := testkit.Parse(t, page.Body.Bytes())
			if got := testkit.TestID(t, doc, "predict-ask"); got != gcPause(t).Moves[5].Predict.Ask.In(tc.lang) {
				t.Fatalf("question %q, want the YAML's", got)
			}
			w := pressOption(t, s, doc, tc.guess, tc.htmx)
			body := w.Body.Bytes()
			if !tc.htmx {
				testkit.MustStatus(t, w, http.StatusSeeOther)
				loc := w.Header().Get("Location")
				want := "/scenarios/gc-pause?fencing=" + tc.on + "&step=7&lang=" + tc.lang + "&guess=" + tc.guess
				if loc != want {
					t.Fatalf("redirect to %q, want %q", loc, want)
				}
				next := testkit.Get(t, s, loc)
				testkit.MustStatus(t, next, http.StatusOK)
				body = next.Body.Bytes()
			} else {
				testkit.MustStatus(t, w, http.StatusOK)
				if got := w.Header().Get("HX-Push-Url"); got == "" || !strings.Contains(got, "guess="+tc.guess) {
					t.Fatalf("HX-Push-Url %q, want the marked frame's address", got)
				}
			}
			res := testkit.Parse(t, body)
			if got := testkit.TestID(t, res, "step-index"); got != "7 / 7" {
				t.Fatalf("frame %q after the answer, want 7 / 7", got)
			}
			if got := testkit.TestID(t, res, "predict-mark"); got != tc.mark {
				t.Fatalf("marked %q, want %q", got, tc.mark)
			}
			wantAnswer := map[string]string{"on": "rejected", "off": "accepted"}[tc.on]
			if got := testkit.Attr(t, res, "predict-answer", "data-value"); got != wantAnswer {
				t.Fatalf("the model's answer %q, want %q", got, wantAnswer)
			}
			if got := res.Find(`[data-testid="predict-tempting"]`).Length(); got != map[bool]int{true: 0, false: 1}[tc.right] {
				t.Fatalf("%d temptations shown, want one only for a wrong answer", got)
			}
		})
	}
}

// An answer the question does not offer, or one on a frame no question led
// to, is a 400 whose way back is the frame; so is one sent with a move
// other than the step that plays the question's move.
func TestPredictRefusals(t *testing.T) {
	s := newTestServer(t, Config{})
	for _, target := range []string{
		"/scenarios/gc-pause?fencing=on&step=7&lang=en&guess=exploded",
		"/scenarios/gc-pause?fencing=on&step=5&lang=en&guess=accepted",
		"/embed/gc-pause?fencing=on&step=7&lang=en&guess=%3Cscript%3E",
	} {
		w := testkit.Get(t, s, target)
		testkit.MustStatus(t, w, http.StatusBadRequest)
	}
	for _, tc := range []struct {
		action string
		form   url.Values
	}{
		{"step", url.Values{"from": {"6"}, "fencing": {"on"}, "lang": {"en"}, "guess": {"exploded"}}},
		{"step", url.Values{"from": {"5"}, "fencing": {"on"}, "lang": {"en"}, "guess": {"accepted"}}},
		{"back", url.Values{"from": {"6"}, "fencing": {"on"}, "lang": {"en"}, "guess": {"accepted"}}},
	} {
		w := testkit.Post(t, s, "/scenarios/gc-pause/"+tc.action, tc.form, false)
		testkit.MustStatus(t, w, http.StatusBadRequest)
	}
}

// withCookie is r with a Cookie header ("" for none).
func withCookie(r *http.Request, cookie string) *http.Request {
	if cookie != "" {
		r.Header.Set("Cookie", cookie)
	}
	return r
}

// lecturePost posts form to target with cookie.
func lecturePost(tb testing.TB, h http.Handler, target, cookie string, form url.Values) *httptest.ResponseRecorder {
	tb.Helper()
	return testkit.Do(tb, h, withCookie(testkit.PostRequest(target, form, false), cookie))
}

func lectureGet(tb testing.TB, h http.Handler, target, cookie string) *httptest.ResponseRecorder {
	tb.Helper()
	return testkit.Do(tb, h, withCookie(httptest.NewRequest(http.MethodGet, target, nil), cookie))
}

// A lecture's question, on one server: only the run key's holder asks; each
// follower's page shows the question; one answer per voter, the latest
// counting; the lecturer's page reads the counts; the next Step reveals the
// model's answer and the room's shares on every follower's frame, and then
// no answer is taken.
func TestLecturePoll(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	at6 := url.Values{"from": {"5"}, "fencing": {"on"}, "lang": {"en"}}
	w := testkit.Post(t, s, "/scenarios/gc-pause/step", at6, false)
	testkit.MustStatus(t, w, http.StatusSeeOther)
	lecturer := runCookieOf(t, w)
	fid := follow.LectureID(strings.TrimPrefix(lecturer, runCookieName+"="))
	ask := url.Values{"from": {"6"}, "fencing": {"on"}, "lang": {"en"}}

	// Asking: no run key is no lecture (403); a frame with no question, 400.
	testkit.MustStatus(t, testkit.Post(t, s, "/scenarios/gc-pause/ask", ask, false), http.StatusForbidden)
	testkit.MustStatus(t, lecturePost(t, s, "/scenarios/gc-pause/ask", lecturer, url.Values{"from": {"5"}, "fencing": {"on"}, "lang": {"en"}}), http.StatusBadRequest)
	page := testkit.Parse(t, lectureGet(t, s, "/follow/"+fid+"?lang=en", "").Body.Bytes())
	if page.Find(`[data-testid="room-question"]`).Length() != 0 {
		t.Fatal("a follower sees a question before the lecturer asked")
	}
	testkit.MustStatus(t, lecturePost(t, s, "/scenarios/gc-pause/ask", lecturer, ask), http.StatusSeeOther)

	page = testkit.Parse(t, lectureGet(t, s, "/follow/"+fid+"?lang=ja", "").Body.Bytes())
	if got, want := testkit.TestID(t, page, "predict-ask"), gcPause(t).Moves[5].Predict.Ask.JA; got != want {
		t.Fatalf("the follower is asked %q, want the YAML's %q", got, want)
	}
	q := testkit.Attr(t, page, "room-question", "data-poll")
	answer := func(cookie, option, id string) *httptest.ResponseRecorder {
		return lecturePost(t, s, "/follow/"+fid+"/answer", cookie, url.Values{"q": {id}, "option": {option}, "lang": {"en"}})
	}
	alice, bob, carol := ticketFor(t, s, fid), ticketFor(t, s, fid), ticketFor(t, s, fid)
	testkit.MustStatus(t, answer(alice, "accepted", q), http.StatusSeeOther)
	testkit.MustStatus(t, answer(alice, "rejected", q), http.StatusSeeOther) // changed: one answer still
	testkit.MustStatus(t, answer(bob, "rejected", q), http.StatusSeeOther)
	testkit.MustStatus(t, answer(bob, "exploded", q), http.StatusBadRequest)
	testkit.MustStatus(t, answer(bob, "rejected", q+"x"), http.StatusConflict)
	testkit.MustStatus(t, answer(carol, "write-skipped", q), http.StatusSeeOther)
	// No ticket, a made-up one, or another lecture's: not counted, and a
	// page that says how to answer.
	other := ticketCookie + "=" + s.tickets.Issue(strings.Repeat("e", 32))
	for _, cookie := range []string{"", ticketCookie + "=" + strings.Repeat("a", 16) + "." + strings.Repeat("b", 16), other} {
		w := answer(cookie, "accepted", q)
		testkit.MustStatus(t, w, http.StatusForbidden)
		if msg := testkit.TestID(t, testkit.Parse(t, w.Body.Bytes()), "error-message"); !strings.Contains(msg, "Reload the page") {
			t.Fatalf("an answer without a ticket of the lecture (%q) says %q, want how to answer", cookie, msg)
		}
	}
	mine := testkit.Parse(t, lectureGet(t, s, "/follow/"+fid+"?lang=en", alice).Body.Bytes())
	if got := testkit.TestID(t, mine, "mine"); !strings.Contains(got, "It turns the write away") {
		t.Fatalf("alice's page says %q, want her own (changed) answer", got)
	}

	// The lecturer's page reads the counts; nobody else's can.
	poll := "/scenarios/gc-pause/poll?fencing=on&step=6&lang=en"
	testkit.MustStatus(t, lectureGet(t, s, poll, ""), http.StatusForbidden)
	room := testkit.Parse(t, lectureGet(t, s, poll, lecturer).Body.Bytes())
	for option, want := range map[string]string{"accepted": "0", "rejected": "2", "write-skipped": "1"} {
		if got := testkit.Attr(t, room, "bar-"+option, "data-count"); got != want {
			t.Errorf("%s counted %s, want %s", option, got, want)
		}
	}
	if got := testkit.TestID(t, room, "room-total"); got != "3 answered" {
		t.Errorf("total %q, want 3 answered", got)
	}

	// The next Step reveals: the model's answer and the shares on every
	// follower's frame, and no answer counts after.
	testkit.MustStatus(t, lecturePost(t, s, "/scenarios/gc-pause/step", lecturer, ask), http.StatusSeeOther)
	testkit.MustStatus(t, answer(bob, "accepted", q), http.StatusConflict)
	page = testkit.Parse(t, lectureGet(t, s, "/follow/"+fid+"?lang=en", "").Body.Bytes())
	if got := testkit.Attr(t, page, "predict-answer", "data-value"); got != "rejected" {
		t.Fatalf("the revealed answer is %q, want the model's rejected", got)
	}
	if got := testkit.TestID(t, page, "bar-rejected"); !strings.Contains(got, "2 (67%)") {
		t.Errorf("the right answer's bar says %q, want 2 (67%%)", got)
	}
	result := testkit.Parse(t, lectureGet(t, s, "/scenarios/gc-pause/poll?fencing=on&step=7&lang=en", lecturer).Body.Bytes())
	if got := testkit.Attr(t, result, "predict-answer", "data-value"); got != "rejected" {
		t.Fatalf("the lecturer's reveal shows %q, want rejected", got)
	}
}

// ticketFor is the cookie a visitor of lecture fid's follow page is handed
// its ticket in, as "ticket=...".
func ticketFor(tb testing.TB, h http.Handler, fid string) string {
	tb.Helper()
	w := lectureGet(tb, h, "/follow/"+fid+"?lang=en", "")
	for _, ck := range w.Result().Cookies() {
		if ck.Name == ticketCookie {
			if ck.Path != "/follow/"+fid || !ck.HttpOnly {
				tb.Fatalf("the ticket's cookie has path %q, HttpOnly %v; want the lecture's pages only, HttpOnly", ck.Path, ck.HttpOnly)
			}
			return ck.Name + "=" + ck.Value
		}
	}
	tb.Fatalf("the follow page (%d) handed out no ticket", w.Code)
	return ""
}

// A flood of answers from one address is cut off like a flood of new runs,
// with a 429 and Retry-After.
func TestAnswerFlood(t *testing.T) {
	cfg := DefaultConfig()
	cfg.FollowPerAddr = 2 // a burst of 4 answers
	s := newTestServer(t, cfg)
	l := startLecture(t, s, true, "en")
	ticket := ticketFor(t, s, l.fid())
	var last *httptest.ResponseRecorder
	for range 5 {
		last = lecturePost(t, s, l.follow+"/answer", ticket, url.Values{"q": {"x"}, "option": {"accepted"}})
	}
	testkit.MustStatus(t, last, http.StatusTooManyRequests)
	if last.Header().Get("Retry-After") == "" {
		t.Fatal("no Retry-After on the refusal")
	}
}

// The lecturer's reading of the totals that names what its screen shows
// (seen) is held until they change: an answer given meanwhile is on the
// screen it brings, and it carries the next reading, with the new totals'
// stamp. Without a question, a reading is not held.
func TestLecturePollHeld(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	w := testkit.Post(t, s, "/scenarios/gc-pause/step", url.Values{"from": {"5"}, "fencing": {"on"}, "lang": {"en"}}, false)
	testkit.MustStatus(t, w, http.StatusSeeOther)
	lecturer := runCookieOf(t, w)
	fid := follow.LectureID(strings.TrimPrefix(lecturer, runCookieName+"="))
	held := func(target string) <-chan *httptest.ResponseRecorder {
		done := make(chan *httptest.ResponseRecorder, 1)
		go func() {
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, withCookie(httptest.NewRequest(http.MethodGet, target, nil), lecturer))
			done <- rec
		}()
		return done
	}
	poll := "/scenarios/gc-pause/poll?fencing=on&step=6&lang=en"
	// No question yet: nothing is held (a reader alone keeps no connection).
	testkit.MustStatus(t, lectureGet(t, s, poll, lecturer), http.StatusNoContent)
	testkit.MustStatus(t, lecturePost(t, s, "/scenarios/gc-pause/ask", lecturer, url.Values{"from": {"6"}, "fencing": {"on"}, "lang": {"en"}}), http.StatusSeeOther)
	room := testkit.Parse(t, lectureGet(t, s, poll, lecturer).Body.Bytes())
	if got := testkit.TestID(t, room, "room-total"); got != "0 answered" {
		t.Fatalf("the held reading after the question says %q, want 0 answered", got)
	}
	next := testkit.Attr(t, room, "poll-next", "hx-get")
	answering := held(next)
	page := testkit.Parse(t, lectureGet(t, s, "/follow/"+fid+"?lang=en", "").Body.Bytes())
	q := testkit.Attr(t, page, "room-question", "data-poll")
	testkit.MustStatus(t, lecturePost(t, s, "/follow/"+fid+"/answer", ticketFor(t, s, fid),
		url.Values{"q": {q}, "option": {"rejected"}, "lang": {"en"}}), http.StatusSeeOther)
	room = testkit.Parse(t, (<-answering).Body.Bytes())
	if got := testkit.Attr(t, room, "bar-rejected", "data-count"); got != "1" {
		t.Fatalf("the held reading brings rejected counted %s, want the answer given while it waited (1)", got)
	}
	if again := testkit.Attr(t, room, "poll-next", "hx-get"); again == next || !strings.Contains(again, views.SeenParam+"=") {
		t.Fatalf("the next reading %q, want one with the new totals' stamp (was %q)", again, next)
	}
}

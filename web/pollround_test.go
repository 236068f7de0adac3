package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/web/follow"
)

// Peer instruction's second vote: the room answers, the lecturer (only)
// asks again, every ticket votes once more (the first round's answers no
// longer count), the lecturer's screen shows both rounds side by side, and
// Step reveals the answer with both rounds on every follower's frame.
func TestLecturePollSecondVote(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	w := testkit.Post(t, s, "/scenarios/gc-pause/step", url.Values{"from": {"5"}, "fencing": {"on"}, "lang": {"en"}}, false)
	lecturer := runCookieOf(t, w)
	fid := follow.LectureID(strings.TrimPrefix(lecturer, runCookieName+"="))
	ask := url.Values{"from": {"6"}, "fencing": {"on"}, "lang": {"en"}}
	testkit.MustStatus(t, lecturePost(t, s, "/scenarios/gc-pause/ask", lecturer, ask), http.StatusSeeOther)
	question := func() string {
		page := testkit.Parse(t, lectureGet(t, s, "/follow/"+fid+"?lang=en", "").Body.Bytes())
		return testkit.Attr(t, page, "room-question", "data-poll")
	}
	answer := func(cookie, option, id string) *httptest.ResponseRecorder {
		return lecturePost(t, s, "/follow/"+fid+"/answer", cookie, url.Values{"q": {id}, "option": {option}, "lang": {"en"}})
	}
	q1 := question()
	alice, bob, carol := ticketFor(t, s, fid), ticketFor(t, s, fid), ticketFor(t, s, fid)
	testkit.MustStatus(t, answer(alice, "accepted", q1), http.StatusSeeOther)
	testkit.MustStatus(t, answer(bob, "accepted", q1), http.StatusSeeOther)
	testkit.MustStatus(t, answer(carol, "rejected", q1), http.StatusSeeOther)

	poll := "/scenarios/gc-pause/poll?fencing=on&step=6&lang=en"
	room := testkit.Parse(t, lectureGet(t, s, poll, lecturer).Body.Bytes())
	if room.Find(`[data-testid="ask-again"]`).Length() != 1 {
		t.Fatal("the lecturer's screen offers no second vote once the room answered")
	}
	again := url.Values{"from": {"6"}, "fencing": {"on"}, "lang": {"en"}, "again": {q1}}
	testkit.MustStatus(t, testkit.Post(t, s, "/scenarios/gc-pause/ask", again, false), http.StatusForbidden) // not the lecturer
	testkit.MustStatus(t, lecturePost(t, s, "/scenarios/gc-pause/ask", lecturer, again), http.StatusSeeOther)
	testkit.MustStatus(t, lecturePost(t, s, "/scenarios/gc-pause/ask", lecturer, again), http.StatusConflict) // a third round: no
	q2 := question()
	if q2 == q1 {
		t.Fatal("the second vote is the first question still")
	}
	testkit.MustStatus(t, answer(alice, "rejected", q1), http.StatusConflict) // the first round is over
	testkit.MustStatus(t, answer(alice, "rejected", q2), http.StatusSeeOther)
	testkit.MustStatus(t, answer(bob, "rejected", q2), http.StatusSeeOther)
	testkit.MustStatus(t, answer(bob, "rejected", q2), http.StatusSeeOther) // once per ticket per round

	room = testkit.Parse(t, lectureGet(t, s, poll, lecturer).Body.Bytes())
	if got := testkit.TestID(t, room, "room-total"); got != "2 answered" {
		t.Fatalf("the second vote's total is %q, want 2 answered", got)
	}
	firsts := room.Find(`[data-testid="bar-accepted"] [data-testid="first-count"]`).AttrOr("data-count", "")
	if firsts != "2" || testkit.Attr(t, room, "bar-accepted", "data-count") != "0" || testkit.Attr(t, room, "bar-rejected", "data-count") != "2" {
		t.Fatalf("the lecturer's bars: accepted first %q, second %s; rejected second %s; want 2, 0, 2",
			firsts, testkit.Attr(t, room, "bar-accepted", "data-count"), testkit.Attr(t, room, "bar-rejected", "data-count"))
	}
	testkit.MustStatus(t, lecturePost(t, s, "/scenarios/gc-pause/step", lecturer, ask), http.StatusSeeOther)
	page := testkit.Parse(t, lectureGet(t, s, "/follow/"+fid+"?lang=en", "").Body.Bytes())
	if got := testkit.TestID(t, page, "bar-accepted"); !strings.Contains(got, "1st vote 2 (67%)") || !strings.Contains(got, "2nd vote 0 (0%)") {
		t.Fatalf("the reveal's bar for accepted says %q, want both votes", got)
	}
}

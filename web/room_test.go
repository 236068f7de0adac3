package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
	"github.com/distlock/fencing-demo/web/room"
)

// roomOf opens a room with the challenges named and returns its learners'
// path and the lecturer's.
func roomOf(t *testing.T, s *Server, challenges ...string) (learn, lead string) {
	t.Helper()
	w := testkit.Post(t, s, "/rooms", url.Values{"c": challenges, "lang": {"en"}}, false)
	testkit.MustStatus(t, w, http.StatusSeeOther)
	lead, _, _ = strings.Cut(w.Header().Get("Location"), "?")
	i := strings.Index(lead, "/lead/")
	if i < 0 {
		t.Fatalf("opening a room led to %q, not a board", lead)
	}
	return lead[:i], lead
}

// learner joins the room at learn and returns their cookie.
func learner(t *testing.T, s *Server, learn, nick string) string {
	t.Helper()
	w := testkit.Post(t, s, learn+"/join", url.Values{"nick": {nick}, "lang": {"en"}}, false)
	testkit.MustStatus(t, w, http.StatusSeeOther)
	for _, c := range w.Result().Cookies() {
		if c.Name == learnerCookie {
			if !c.HttpOnly || c.Path != learn {
				t.Fatalf("the pass %+v is not HttpOnly for the room's path only", c)
			}
			return c.Name + "=" + c.Value
		}
	}
	t.Fatal("joining gave no pass")
	return ""
}

// submit sends a submission as room.js does and returns the answer.
func submitToRoom(t *testing.T, s *Server, learn, cookie string, c, key, place string) *httptest.ResponseRecorder {
	t.Helper()
	r := testkit.PostRequest(learn+"/submit", url.Values{"c": {c}, "key": {key}, "place": {place}, "lang": {"en"}}, true)
	if cookie != "" {
		r.Header.Set("Cookie", cookie)
	}
	return testkit.Do(t, s, r)
}

// shortestBreak is the finder's shortest break of sc from its first frame,
// switch off, as the address of its last frame.
func shortestBreak(t *testing.T, sc *demo.Scenario, upTo int) (string, int) {
	t.Helper()
	prop, _ := sc.Promise()
	start := demo.Place{Sc: sc, Step: 1}
	res, err := find.Find(start, prop, find.Options{})
	if err != nil || !res.Found {
		t.Fatalf("the finder breaks no %s: %v", sc.ID, err)
	}
	p := views.Place{Place: start, Lang: "en", FreePlay: true}
	for _, a := range res.Trace[:upTo] {
		p.Place = p.Place.Then(a)
	}
	return p.URL(), len(res.Trace)
}

func boardCounts(t *testing.T, s *Server, lead string) (joined, subs string, rows [][3]string) {
	t.Helper()
	w := testkit.Get(t, s, lead+"?lang=en")
	testkit.MustStatus(t, w, http.StatusOK)
	doc := testkit.Parse(t, w.Body.Bytes())
	for i := 0; ; i++ {
		row := doc.Find(`[data-testid="room-row-` + string(rune('0'+i)) + `"]`)
		if row.Length() == 0 {
			break
		}
		rows = append(rows, [3]string{row.Find(`[data-testid="tried"]`).Text(), row.Find(`[data-testid="solved"]`).Text(), row.Find(`[data-testid="atpar"]`).Text()})
	}
	return testkit.TestID(t, doc, "room-joined"), testkit.TestID(t, doc, "room-subs"), rows
}

// A workshop end to end, without a browser: a room opened with a break and
// a fix, two learners, a break at par and a wrong fix counted once each,
// every forged submission refused and counted nowhere, the board's counts
// those of the submissions, one learner's break put on the projector and
// followed, and the room closed and forgotten.
func TestRoomWorkshop(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	testkit.MustStatus(t, testkit.Get(t, s, "/rooms?lang=en"), http.StatusOK)
	learn, lead := roomOf(t, s, "break:gc-pause:off", "fix:gc-pause")
	ann, bob := learner(t, s, learn, "Ann"), learner(t, s, learn, "")
	sc := gcPause(t)
	broke, par := shortestBreak(t, sc, -1+len(mustTrace(t, sc))+1)
	w := submitToRoom(t, s, learn, ann, "0", "aaaaaaaaaaaaaaaa1", broke)
	testkit.MustStatus(t, w, http.StatusOK)
	if doc := testkit.Parse(t, w.Body.Bytes()); testkit.Attr(t, doc, "room-res", "data-solved") != "true" {
		t.Fatalf("the shortest break was not judged a break: %s", w.Body)
	}
	testkit.MustStatus(t, submitToRoom(t, s, learn, ann, "0", "aaaaaaaaaaaaaaaa1", broke), http.StatusConflict) // a replay
	wrong := sc.Lab.Tries[0]
	for _, try := range sc.Lab.Tries {
		if strings.HasPrefix(try.Expect, "broken") {
			wrong = try
		}
	}
	w = submitToRoom(t, s, learn, bob, "1", "bbbbbbbbbbbbbbbb1", views.LabURL(sc.ID, wrong.Build.String(), "en", false))
	testkit.MustStatus(t, w, http.StatusOK)

	// Forged and wrong submissions: refused, with what was wrong, and
	// counted nowhere.
	other, _ := roomOf(t, s, "break:gc-pause:off")
	stranger := learner(t, s, other, "")
	half, _ := shortestBreak(t, sc, 1)
	forged := map[string]struct {
		status        int
		cookie, c, pl string
		key           string
		says          string
	}{
		"breaks nothing":       {http.StatusUnprocessableEntity, ann, "0", half, "cccccccccccccccc1", "room.err.holds"},
		"another scenario":     {http.StatusUnprocessableEntity, ann, "0", "/scenarios/release-other?step=1", "cccccccccccccccc2", "room.err.other"},
		"a build that fails":   {http.StatusUnprocessableEntity, bob, "1", "/scenarios/gc-pause/lab?build=" + views.EncodeBuild("A: fly\n"), "cccccccccccccccc3", "room.err.build"},
		"a code not ours":      {http.StatusUnprocessableEntity, bob, "1", "/scenarios/gc-pause/lab?build=notours", "cccccccccccccccc4", "room.err.build"},
		"no pass":              {http.StatusForbidden, "", "0", broke, "cccccccccccccccc5", "room.err.token"},
		"another room's pass":  {http.StatusForbidden, strings.Replace(stranger, "learner=", "learner=", 1), "0", broke, "cccccccccccccccc6", "room.err.token"},
		"a forged pass":        {http.StatusForbidden, "learner=00000000000000000000000000000000.00", "0", broke, "cccccccccccccccc7", "room.err.token"},
		"no key":               {http.StatusBadRequest, ann, "0", broke, "", "room.err.key"},
		"a key too short":      {http.StatusBadRequest, ann, "0", broke, "k", "room.err.key"},
		"too long":             {http.StatusUnprocessableEntity, ann, "0", broke + "&x=" + strings.Repeat("a", maxSubmitted), "cccccccccccccccc8", "room.err.long"},
		"no such challenge":    {http.StatusNotFound, ann, "7", broke, "cccccccccccccccc9", ""},
		"too many moves":       {http.StatusUnprocessableEntity, ann, "0", tooLong(t, sc, broke), "ccccccccccccccc10", "room.err.budget"},
		"the frame is another": {http.StatusUnprocessableEntity, ann, "0", strings.Replace(broke, "step=1", "step=2", 1), "ccccccccccccccc11", "room.err.start"},
	}
	for name, f := range forged {
		t.Run(name, func(t *testing.T) {
			w := submitToRoom(t, s, learn, f.cookie, f.c, f.key, f.pl)
			testkit.MustStatus(t, w, f.status)
			if f.says == "" {
				return
			}
			words, _, _ := strings.Cut(views.T("en", f.says), "%")
			if got := testkit.TestID(t, testkit.Parse(t, w.Body.Bytes()), "room-res"); !strings.Contains(got, strings.TrimSpace(words)) {
				t.Fatalf("the refusal says %q, want %q", got, words)
			}
		})
	}
	big := testkit.PostRequest(learn+"/submit", url.Values{"c": {"0"}, "key": {"dddddddddddddddd1"}, "place": {strings.Repeat("a", 20<<10)}}, true)
	big.Header.Set("Cookie", ann)
	testkit.MustStatus(t, testkit.Do(t, s, big), http.StatusRequestEntityTooLarge)

	joined, subs, rows := boardCounts(t, s, lead)
	if joined != "2" || subs != "2" || rows[0] != [3]string{"1", "1", "1"} || rows[1][0] != "1" || rows[1][1] != "0" {
		t.Fatalf("the board shows %s joined, %s submissions, rows %v; want 2, 2, a break at par and a fix tried", joined, subs, rows)
	}
	if par != len(mustTrace(t, sc)) {
		t.Fatal("the break is not the shortest")
	}

	// A learner cannot drive the board.
	bad := strings.Replace(lead, "/lead/", "/lead/0", 1)
	testkit.MustStatus(t, testkit.Get(t, s, bad), http.StatusForbidden)
	testkit.MustStatus(t, testkit.Post(t, s, bad+"/close", url.Values{}, false), http.StatusForbidden)

	// The lecturer shows Ann's break: the room's projector moves to it.
	doc := testkit.Parse(t, testkit.Get(t, s, lead).Body.Bytes())
	var sid string
	doc.Find(`[data-testid^="show-"]`).Each(func(_ int, b *goquery.Selection) {
		if strings.Contains(b.Parent().Text(), "Ann") {
			sid = b.AttrOr("data-testid", "")
		}
	})
	if shown := doc.Find(`[data-testid="room-shown"]`).Text(); !strings.Contains(shown, "a learner") || !strings.Contains(shown, "does not hold") {
		t.Fatalf("the board offers %q to show, want Bob's fix without a name, said not to hold", shown)
	}
	w = testkit.Post(t, s, lead+"/show", url.Values{"sub": {strings.TrimPrefix(sid, "show-")}, "lang": {"en"}}, false)
	testkit.MustStatus(t, w, http.StatusSeeOther)
	run := runCookieOf(t, w)
	fid := follow.LectureID(strings.TrimPrefix(run, runCookieName+"="))
	learnPage := testkit.Parse(t, testkit.Get(t, s, learn, "Cookie", ann).Body.Bytes())
	if got := testkit.Attr(t, learnPage, "room-watch", "href"); !strings.HasPrefix(got, views.FollowURL(fid)) {
		t.Fatalf("the learners watch %q, the projector is %s", got, fid)
	}
	fw := testkit.Get(t, s, views.FollowURL(fid)+"?lang=en")
	testkit.MustStatus(t, fw, http.StatusOK)
	prop, _ := sc.Promise()
	if got := testkit.Attr(t, testkit.Parse(t, fw.Body.Bytes()), "verdict", "data-verdict"); got != prop.Kind.String() {
		t.Fatalf("the room's projector shows the verdict %q, not Ann's break (%s)", got, prop.Kind)
	}

	// Bob's fix on the projector: the built scenario's frames.
	var fix string
	doc.Find(`[data-testid^="show-"]`).Each(func(_ int, b *goquery.Selection) {
		if strings.Contains(b.Parent().Text(), "fix") {
			fix = strings.TrimPrefix(b.AttrOr("data-testid", ""), "show-")
		}
	})
	w = testkit.Post(t, s, lead+"/show", url.Values{"sub": {fix}, "lang": {"en"}}, false)
	testkit.MustStatus(t, w, http.StatusSeeOther)
	if loc := w.Header().Get("Location"); !strings.Contains(loc, "build="+views.EncodeBuild(wrong.Build.String())) {
		t.Fatalf("showing Bob's fix leads to %q, not his build's frames", loc)
	}
	testkit.MustStatus(t, testkit.Get(t, s, views.FollowURL(fid)+"?lang=en"), http.StatusOK)

	testkit.MustStatus(t, testkit.Post(t, s, lead+"/close", url.Values{"lang": {"en"}}, false), http.StatusSeeOther)
	testkit.MustStatus(t, testkit.Get(t, s, learn), http.StatusNotFound)
	testkit.MustStatus(t, submitToRoom(t, s, learn, ann, "0", "eeeeeeeeeeeeeeee1", broke), http.StatusNotFound)
}

func mustTrace(t *testing.T, sc *demo.Scenario) []demo.Action {
	prop, _ := sc.Promise()
	res, err := find.Find(demo.Place{Sc: sc, Step: 1}, prop, find.Options{})
	if err != nil || !res.Found {
		t.Fatal("no break")
	}
	return res.Trace
}

// tooLong is the break with moves added past the budget.
func tooLong(t *testing.T, sc *demo.Scenario, broke string) string {
	u, _ := url.Parse(broke)
	here, err := views.ReadPlace(sc, u.Query(), views.InURL, views.PageView, "")
	if err != nil {
		t.Fatal(err)
	}
	for range 4 {
		offers, err := here.Place.Offers()
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range offers {
			if o.Enabled() {
				here.Place = here.Place.Then(o.Action)
				break
			}
		}
	}
	return here.URL()
}

// The server's bounds on rooms: -max-rooms rooms at once (then a page
// that says so, 503), and rooms opened per address; -room-learners per
// room.
func TestRoomBounds(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxRooms, cfg.RoomLearners = 1, 1
	s := newTestServer(t, cfg)
	learn, _ := roomOf(t, s, "fix:gc-pause")
	w := httptest.NewRecorder() // a documented busy answer: 503 with Retry-After
	s.ServeHTTP(w, testkit.PostRequest("/rooms", url.Values{"c": {"fix:gc-pause"}, "lang": {"en"}}, false))
	testkit.MustStatus(t, w, http.StatusServiceUnavailable)
	if w.Header().Get("Retry-After") == "" {
		t.Fatal("no Retry-After on a room refused for -max-rooms")
	}
	if got := testkit.TestID(t, testkit.Parse(t, w.Body.Bytes()), "room-error"); !strings.Contains(got, "As many rooms are open") {
		t.Fatalf("a room past -max-rooms says %q", got)
	}
	learner(t, s, learn, "")
	testkit.MustStatus(t, testkit.Post(t, s, learn+"/join", url.Values{"lang": {"en"}}, false), http.StatusConflict)
	for _, bad := range []url.Values{{}, {"c": {"break:gc-pause:sideways"}}, {"c": {"fix:no-lease"}}} {
		testkit.MustStatus(t, testkit.Post(t, s, "/rooms", bad, false), http.StatusBadRequest)
	}

	cfg.MaxRooms = 100
	s = newTestServer(t, cfg)
	for range roomOpensPerHour {
		roomOf(t, s, "fix:gc-pause")
	}
	w = testkit.Post(t, s, "/rooms", url.Values{"c": {"fix:gc-pause"}, "lang": {"en"}}, false)
	testkit.MustStatus(t, w, http.StatusTooManyRequests)
	if w.Header().Get("Retry-After") == "" {
		t.Fatal("no Retry-After on a room refused to an address that opened many")
	}
}

// Whatever a learner sends as their frames' address, the answer is never
// a 5xx, and the board counts exactly the submissions answered 200.
func FuzzRoomSubmit(f *testing.F) {
	cfg := DefaultConfig()
	cfg.RoomSubmits = 1 << 20
	s := newTestServer(f, cfg)
	for _, seed := range []string{
		"/scenarios/gc-pause?fencing=off&step=1&lang=en&play=Qgk5WKQ4oQYnIpShIQ8IAAD__w",
		"/embed/gc-pause?fencing=off&step=1&play=Qgk5WKQ4oQYnIpShIQ8IAAD__w",
		"/scenarios/gc-pause?fencing=off&step=1&play=%ff",
		"/scenarios/gc-pause/lab?build=QQo",
		"/scenarios/gc-pause?build=notours&play=x",
		"http://[::1]:namedport",
		"/scenarios/../embed/gc-pause",
		"",
	} {
		f.Add(seed, "0")
		f.Add(seed, "1")
	}
	var learn, lead, cookie string
	counted := 0
	f.Fuzz(func(t *testing.T, place, c string) {
		if learn == "" {
			learn, lead = roomOf(t, s, "break:gc-pause:off", "fix:gc-pause")
			cookie = learner(t, s, learn, "")
		}
		if submitToRoom(t, s, learn, cookie, c, room.NewID(), place).Code == http.StatusOK {
			counted++
		}
		if _, subs, _ := boardCounts(t, s, lead); subs != strconv.Itoa(counted) {
			t.Fatalf("the board counts %s submissions; %d were answered 200", subs, counted)
		}
	})
}

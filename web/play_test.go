package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// Free play, as a visitor meets it: take over a frame of gc-pause, act by
// the page's own offer buttons, undo, switch, leave for the script; the
// address alone decides each frame, so a fresh server answers it the same.

// breakByHand is how a student breaks gc-pause with fencing off from its
// first frame: A takes the lock and stops for a GC pause, the lease runs
// out, B takes the lock and writes, A wakes up and writes late.
var breakByHand = []string{"A acquire 10", "A pause", "tick 10", "B acquire 10", "B write B", "A resume", "A write A"}

// clickOffer presses the offer button whose script line is line, as a
// browser submits its form: every field of the form and the button's own
// name and value.
func clickOffer(tb testing.TB, h http.Handler, doc *goquery.Document, line string, htmx bool) *httptest.ResponseRecorder {
	tb.Helper()
	btn := doc.Find(`[data-testid="offer"][data-action="` + line + `"]`)
	if btn.Length() != 1 {
		var have []string
		doc.Find(`[data-testid="offer"]`).Each(func(_ int, s *goquery.Selection) { have = append(have, s.AttrOr("data-action", "")) })
		tb.Fatalf("%d offers of %q, want 1; offered: %q", btn.Length(), line, have)
	}
	if _, disabled := btn.Attr("disabled"); disabled {
		tb.Fatalf("the offer %q is disabled: %s", line, btn.AttrOr("title", ""))
	}
	form := btn.Closest("form")
	target := form.AttrOr("action", "")
	if htmx {
		target = form.AttrOr("hx-post", target)
	}
	values := url.Values{}
	form.Find("input[name]").Each(func(_ int, in *goquery.Selection) {
		values.Add(in.AttrOr("name", ""), in.AttrOr("value", ""))
	})
	values.Set(btn.AttrOr("name", ""), btn.AttrOr("value", ""))
	return testkit.Post(tb, h, target, values, htmx)
}

// answered is the page a click leads to: the fragment htmx swaps in, or
// without JavaScript the page the redirect names. It returns the page and
// its address.
func answered(tb testing.TB, h http.Handler, w *httptest.ResponseRecorder, htmx bool) (*goquery.Document, string) {
	tb.Helper()
	if htmx {
		testkit.MustStatus(tb, w, http.StatusOK)
		return testkit.Parse(tb, w.Body.Bytes()), w.Header().Get("HX-Push-Url")
	}
	testkit.MustStatus(tb, w, http.StatusSeeOther)
	loc := w.Header().Get("Location")
	page := testkit.Get(tb, h, loc, "Cookie", runCookieOf(tb, w))
	testkit.MustStatus(tb, page, http.StatusOK)
	return testkit.Parse(tb, page.Body.Bytes()), loc
}

// freeFrame is the frame at free-play place p, as the model plays it.
func freeFrame(tb testing.TB, p demo.Place) demo.Frame {
	tb.Helper()
	f, err := p.Frame()
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// mustShowFree fails unless doc shows free-play frame f in lang, n actions
// after the script's frame step: as mustShow, with free play's index.
func mustShowFree(tb testing.TB, doc *goquery.Document, f demo.Frame, step, n int, lang string) {
	tb.Helper()
	want := expect(f, lang)
	want.Index = views.T(lang, "free.mode") + " " + fmt.Sprintf(views.T(lang, "free.index"), step, n)
	if got := shown(tb, doc); got != want {
		tb.Fatalf("free-play frame %d (fencing %s, %s) shows\n %+v\nwant\n %+v", n, demo.OnOff(f.On), lang, got, want)
	}
	if got, want := doc.Find("details.log li").Length(), len(f.Events); got != want {
		tb.Fatalf("event log has %d entries, want %d", got, want)
	}
	if n := doc.Find(`[data-testid="lesson"]`).Length(); n != 0 {
		tb.Fatalf("free play shows the script's lesson")
	}
	if got, want := testkit.TestID(tb, doc, "narration"), f.Title.In(lang); !strings.HasPrefix(got, want) {
		tb.Fatalf("narration %q, want the frame's %q", got, want)
	}
}

// mustVerdict fails unless doc's verdict is frame f's.
func mustVerdict(tb testing.TB, doc *goquery.Document, f demo.Frame, lang string) {
	tb.Helper()
	if got, want := testkit.TestID(tb, doc, "verdict"), strings.Join(strings.Fields(views.T(lang, "verdict")+": "+views.VerdictMark(f.Verdict().Kind.Class())+" "+views.Verdict(lang, f)), " "); got != want {
		tb.Fatalf("verdict %q, want %q", got, want)
	}
}

func TestTakeOverAndBreakByHand(t *testing.T) {
	sc := gcPause(t)
	for _, htmx := range []bool{true, false} {
		s := newTestServer(t, DefaultConfig())
		doc := testkit.Parse(t, testkit.Get(t, s, gcPauseURL(false, 1, "en")).Body.Bytes())
		doc, addr := answered(t, s, testkit.Click(t, s, doc, "takeover", htmx), htmx)
		if want := gcPauseURL(false, 1, "en") + "&play="; addr != want {
			t.Fatalf("htmx=%v: taking over leads to %q, want %q", htmx, addr, want)
		}
		if doc.Find(`[data-testid="offers"]`).Length() != 1 || doc.Find(`[data-testid="offers-A"] [data-testid="offer"]`).Length() == 0 ||
			doc.Find(`[data-testid="offers-world"] [data-testid="offer"]`).Length() == 0 {
			t.Fatalf("htmx=%v: free play offers no actions for A and for the world", htmx)
		}
		p := demo.Place{Sc: sc, On: false, Step: 1}
		for i, line := range breakByHand {
			doc, addr = answered(t, s, clickOffer(t, s, doc, line, htmx), htmx)
			p = p.Then(mustParse(t, sc, line))
			mustShowFree(t, doc, freeFrame(t, p), 1, i+1, "en")
			mustVerdict(t, doc, freeFrame(t, p), "en")
		}
		f := freeFrame(t, p)
		if f.Verdict().Kind != demo.StaleWrite {
			t.Fatalf("breaking it by hand ends with %v, want a stale write", f.Verdict().Kind)
		}
		// A disabled offer says why, to the eye and to a screen reader.
		off := doc.Find(`[data-testid="offer"][disabled]`).First()
		if off.Length() == 0 || off.AttrOr("title", "") == "" || !strings.Contains(off.Find(".sr-only").Text(), off.AttrOr("title", "")) {
			t.Fatalf("htmx=%v: a disabled offer without its reason: %q", htmx, off.Text())
		}

		// The address alone is the place: a fresh server (a restart,
		// another replica) shows the same frame.
		fresh := newTestServer(t, DefaultConfig())
		again := testkit.Get(t, fresh, addr)
		testkit.MustStatus(t, again, http.StatusOK)
		rdoc := testkit.Parse(t, again.Body.Bytes())
		mustShowFree(t, rdoc, f, 1, len(breakByHand), "en")
		mustVerdict(t, rdoc, f, "en")

		// Undo, then the switch: the same history with fencing on turns
		// the late write away.
		doc, _ = answered(t, s, testkit.Click(t, s, doc, "back", htmx), htmx)
		mustShowFree(t, doc, freeFrame(t, p.Back()), 1, len(breakByHand)-1, "en")
		doc, _ = answered(t, s, clickOffer(t, s, doc, "A write A", htmx), htmx)
		doc, _ = answered(t, s, testkit.Click(t, s, doc, sc.Switch, htmx), htmx)
		fOn := freeFrame(t, p.Switched())
		mustShowFree(t, doc, fOn, 1, len(breakByHand), "en")
		if k := fOn.Verdict().Kind; k == demo.StaleWrite {
			t.Fatalf("with fencing on the same history ends with %v", k)
		}
		// Back to the script, at the frame where free play began.
		doc, addr = answered(t, s, testkit.Click(t, s, doc, "script", htmx), htmx)
		if addr != gcPauseURL(true, 1, "en") {
			t.Fatalf("back to the script leads to %q", addr)
		}
		mustShow(t, doc, testkit.Frame(t, sc, true, 1), "en")
	}
}

func mustParse(tb testing.TB, sc *demo.Scenario, line string) demo.Action {
	tb.Helper()
	a, err := demo.ParseFree(sc, line)
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

// A history that is no code of ours, or that cannot be played, is a 400
// page whose way back keeps the valid prefix; never a 500.
func TestBadHistoryIs400WithValidPrefix(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	good := "A acquire 10\nA pause"
	for _, tc := range []struct{ name, play, back string }{
		{"impossible", views.EncodePlay(good + "\nA write A\ntick 1"), gcPauseURL(false, 1, "en") + "&play=" + views.EncodePlay(good)},
		{"malformed", "x!y", gcPauseURL(false, 1, "en") + "&play="},
		{"not ours", "AAAAAAAA", gcPauseURL(false, 1, "en") + "&play="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"/scenarios/gc-pause", "/embed/gc-pause", "/scenarios/gc-pause/yaml"} {
				w := testkit.Get(t, s, path+"?fencing=off&step=1&lang=en&play="+tc.play)
				testkit.MustStatus(t, w, http.StatusBadRequest)
				doc := testkit.Parse(t, w.Body.Bytes())
				back := tc.back
				if path == "/embed/gc-pause" {
					back = strings.Replace(back, "/scenarios/", "/embed/", 1)
				}
				if got := testkit.Attr(t, doc, "continue", "href"); got != back {
					t.Fatalf("%s: the way back is %q, want %q", path, got, back)
				}
				if got := testkit.Get(t, s, back); got.Code != http.StatusOK {
					t.Fatalf("%s: the way back %q answers %d", path, back, got.Code)
				}
			}
		})
	}
	// A click that names an action not offered there.
	form := views.Place{Place: demo.Place{Sc: gcPause(t), Step: 1}, Lang: "en"}.TakeOver().Form("")
	form.Set(views.ActParam, "A resume")
	w := testkit.Post(t, s, "/scenarios/gc-pause/do", form, true)
	testkit.MustStatus(t, w, http.StatusBadRequest)
}

// A follower sees the lecturer's free play, move by move, and the try link
// takes them to the same free-play place.
func TestFollowFreePlay(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, DefaultConfig())
	t.Cleanup(s.Close)
	l := startLecture(t, s, false, "en") // frame 2
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	st := testkit.OpenStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en")
	st.Next(t, 5*time.Second) // frame 2
	doc := testkit.Parse(t, click(t, s, "takeover", l.p, true).Body.Bytes())
	p := demo.Place{Sc: sc, On: false, Step: 2}
	for _, line := range []string{"tick 10", "B acquire 10"} {
		w := clickOffer(t, s, doc, line, true)
		doc, _ = answered(t, s, w, true)
		p = p.Then(mustParse(t, sc, line))
		ev := st.Next(t, 5*time.Second)
		fdoc := testkit.Parse(t, []byte(ev.Data))
		f := freeFrame(t, p)
		if got, want := testkit.TestID(t, fdoc, "holder"), expect(f, "en").Holder; got != want {
			t.Fatalf("after %q a follower sees the holder %q, want %q", line, got, want)
		}
		try := testkit.Attr(t, fdoc, "try", "href")
		if want := (views.Place{Place: p, Lang: "en", FreePlay: true}).URL(); try != want {
			t.Fatalf("try it myself=%q, want %q", try, want)
		}
		mustReadOnly(t, fdoc)
	}
}

// savedEnd is the last frame of scenario id of the saved YAML, played with
// the switch on.
func savedEnd(tb testing.TB, yaml []byte, id string, on bool) demo.Frame {
	tb.Helper()
	cat, err := script.Load("saved.yaml", yaml)
	if err != nil {
		tb.Fatalf("the saved YAML does not load: %v\n%s", err, yaml)
	}
	saved, ok := cat.Get(id)
	if !ok {
		tb.Fatalf("no %s in %q", id, cat.IDs())
	}
	if saved.Default != on {
		tb.Fatalf("the saved switch starts %v, want %v", saved.Default, on)
	}
	return testkit.Frame(tb, saved, on, saved.Frames())
}

// A database scenario's history names its statements by number; saved,
// they are the statements themselves, and play to the same end.
func TestSaveDatabaseScenario(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	sc, _ := s.Catalog().Get("lost-update")
	for _, on := range []bool{false, true} {
		p := demo.Place{Sc: sc, On: on, Step: 1}
		for _, line := range []string{"A stmt 1", "B stmt 1", "A stmt 2", "B stmt 2", "A stmt 4", "B stmt 6", "A stmt 5", "B stmt 5"} {
			if next := p.Then(mustParse(t, sc, line)); func() bool { _, err := next.Run(); return err == nil }() {
				p = next
			}
		}
		if strings.Count(p.Play, "\n") < 3 {
			t.Fatalf("fencing %s: only %q played", demo.OnOff(on), p.Play)
		}
		w := testkit.Get(t, s, views.Place{Place: p, Lang: "en", FreePlay: true}.SaveURL()+"&download=1")
		testkit.MustStatus(t, w, http.StatusOK)
		if strings.Contains(w.Body.String(), " stmt ") || !strings.Contains(w.Body.String(), " sql ") {
			t.Fatalf("the saved YAML does not write the statements out:\n%s", w.Body)
		}
		got, want := savedEnd(t, w.Body.Bytes(), "lost-update-free", on), freeFrame(t, p)
		if got.Verdict() != want.Verdict() || got.Data != want.Data || len(got.Events) != len(want.Events) {
			t.Fatalf("%s=%s: the saved scenario ends with %+v, want %+v", sc.Switch, demo.OnOff(on), got.Verdict(), want.Verdict())
		}
	}
}

// "Save as a scenario" gives YAML that demo/script loads as it is, and
// whose scenario, played to its end in the position the history was played
// in, reaches the free-play frame's verdict; and a server started with
// -scenarios on it (main_test.go) plays it.
func TestSaveAsScenario(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, DefaultConfig())
	for _, on := range []bool{false, true} {
		p := demo.Place{Sc: sc, On: on, Step: 2}
		for _, line := range breakByHand[1:] {
			p = p.Then(mustParse(t, sc, line))
		}
		free := views.Place{Place: p, Lang: "ja", FreePlay: true}
		page := testkit.Get(t, s, free.SaveURL())
		testkit.MustStatus(t, page, http.StatusOK)
		doc := testkit.Parse(t, page.Body.Bytes())
		w := testkit.Get(t, s, testkit.Attr(t, doc, "save-download", "href"))
		testkit.MustStatus(t, w, http.StatusOK)
		if got := w.Header().Get("Content-Disposition"); !strings.Contains(got, "gc-pause-free.yaml") {
			t.Fatalf("Content-Disposition=%q", got)
		}
		if got, want := testkit.TestID(t, doc, "save-text"), strings.Join(strings.Fields(w.Body.String()), " "); got != want {
			t.Fatalf("the page's YAML differs from the download's")
		}
		want := freeFrame(t, p)
		got := savedEnd(t, w.Body.Bytes(), "gc-pause-free", on)
		if got.Verdict() != want.Verdict() || got.Data != want.Data || got.Now != want.Now || len(got.Events) != len(want.Events) {
			t.Fatalf("fencing %s: the saved scenario ends with %+v (data %q, t=%d), want %+v (data %q, t=%d)",
				demo.OnOff(on), got.Verdict(), got.Data, got.Now, want.Verdict(), want.Data, want.Now)
		}
	}
}

// With replicas (-follow-redis, a real redis-server), the lecturer's free
// play on replica A reaches a follower on replica B, and B answers the
// free-play address itself with the same frame.
func TestFreePlayAcrossReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server: not with -short")
	}
	sc := gcPause(t)
	rd := realserver.StartRedis(t, "follow")
	cfg := DefaultConfig()
	cfg.FollowRedis = "redis://" + rd.Addr() + "/0"
	a, b := newTestServer(t, cfg), newTestServer(t, cfg)
	srvB := httptest.NewServer(b)
	t.Cleanup(srvB.Close)
	t.Cleanup(a.Close) // streams end before the servers close
	t.Cleanup(b.Close)

	l := startLecture(t, a, false, "en") // frame 2, on replica A
	onB := testkit.OpenStream(t, srvB.Client(), srvB.URL+l.follow+"/events?lang=en")
	onB.Next(t, 5*time.Second)
	doc := testkit.Parse(t, click(t, a, "takeover", l.p, true).Body.Bytes())
	p := demo.Place{Sc: sc, On: false, Step: 2}
	for _, line := range []string{"tick 10", "B acquire 10", "B write B"} {
		w := clickOffer(t, a, doc, line, true)
		var addr string
		doc, addr = answered(t, a, w, true)
		p = p.Then(mustParse(t, sc, line))
		f := freeFrame(t, p)
		fdoc := testkit.Parse(t, []byte(onB.Next(t, 5*time.Second).Data))
		if got, want := testkit.TestID(t, fdoc, "resource-value"), expect(f, "en").Value; got != want {
			t.Fatalf("after %q a follower on B sees the resource %q, want %q", line, got, want)
		}
		page := testkit.Get(t, b, addr)
		testkit.MustStatus(t, page, http.StatusOK)
		mustShowFree(t, testkit.Parse(t, page.Body.Bytes()), f, 2, len(views.PlayLines(p.Play)), "en")
	}
}

// Free play inside an iframe: its forms post to /embed/, and the QR code
// of a free-play frame (its address with the history) is drawn.
func TestFreePlayEmbeddedAndShared(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, DefaultConfig())
	p := views.Place{Place: demo.Place{Sc: sc, Step: 2}, Lang: "en", View: views.EmbedView}.TakeOver()
	p.Place = p.Place.Then(mustParse(t, sc, "tick 10"))
	w := testkit.Get(t, s, p.URL())
	testkit.MustStatus(t, w, http.StatusOK)
	doc := testkit.Parse(t, w.Body.Bytes())
	if got := doc.Find(`[data-testid="offers"] form`).AttrOr("hx-post", ""); got != "/embed/gc-pause/do" {
		t.Fatalf("the offers post to %q inside an iframe, want /embed/gc-pause/do", got)
	}
	doc, _ = answered(t, s, clickOffer(t, s, doc, "B acquire 10", true), true)
	mustShowFree(t, doc, freeFrame(t, p.Place.Then(mustParse(t, sc, "B acquire 10"))), 2, 2, "en")
	qr := testkit.Get(t, s, testkit.Attr(t, doc, "qr", "src"))
	testkit.MustStatus(t, qr, http.StatusOK)
}

package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/web/follow"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// frameOf is the prefetch address of a control's data-to, as
// static/prefetch.js makes it: the frame's path with /frame, its query, and
// ids=1 for the answer with marks.
func frameOf(tb testing.TB, to string, marks bool) string {
	tb.Helper()
	u, err := url.Parse(to)
	if err != nil {
		tb.Fatalf("data-to %q: %v", to, err)
	}
	u.Path += "/frame"
	if marks {
		u.RawQuery += "&" + marksParam + "=1"
	}
	return u.String()
}

// TestPrefetchedFrameIsTheClicksAnswer: every control that names the frame
// it leads to (data-to) leads there, and the frame fetched for it before
// the click, with the visitor's ids written where the marks are, is byte for
// byte the click's own answer: the page can paint it at once. Through a
// script's frame, free play's first frame and one after an offer.
func TestPrefetchedFrameIsTheClicksAnswer(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	w := click(t, s, "step", place{from: 2, on: true, lang: "en"}, true)
	testkit.MustStatus(t, w, http.StatusOK)
	cookie := runCookieOf(t, w)
	run := strings.TrimPrefix(cookie, runCookieName+"=")
	fid := follow.LectureID(run)
	// fill writes the visitor's ids where the answer's header says its marks
	// are, as the page does.
	fill := func(pre *httptest.ResponseRecorder) string {
		var marks struct{ run, follow string }
		if _, err := fmt.Sscanf(pre.Header().Get(marksHeader), "run=%s follow=%s", &marks.run, &marks.follow); err != nil || len(marks.run) != respond.IDLen || len(marks.follow) != respond.IDLen {
			t.Fatalf("a prefetched frame's %s %q names no run mark and follow mark (%v)", marksHeader, pre.Header().Get(marksHeader), err)
		}
		return strings.ReplaceAll(strings.ReplaceAll(pre.Body.String(), marks.run, run), marks.follow, fid)
	}
	// press posts the form of el (a form with data-to, or an offer's
	// button), as the browser would.
	press := func(el *goquery.Selection) *httptest.ResponseRecorder {
		form := el.Closest("form")
		vals := url.Values{}
		form.Find(`input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
			vals.Set(in.AttrOr("name", ""), in.AttrOr("value", ""))
		})
		if el.Is("button") {
			vals.Set(el.AttrOr("name", ""), el.AttrOr("value", ""))
		}
		resp := testkit.Do(t, s, withCookie(testkit.PostRequest(form.AttrOr("action", ""), vals, true), cookie))
		testkit.MustStatus(t, resp, http.StatusOK)
		return resp
	}
	scripted := testkit.Parse(t, w.Body.Bytes())
	free := testkit.Parse(t, press(scripted.Find(`#demo [data-testid="takeover"]`)).Body.Bytes())
	played := testkit.Parse(t, press(free.Find(`#demo button[data-to]`).First()).Body.Bytes())
	checked := 0
	for name, doc := range map[string]*goquery.Document{"frame 3": scripted, "free play": free, "after an offer": played} {
		doc.Find("#demo [data-to]").Each(func(_ int, el *goquery.Selection) {
			to := el.AttrOr("data-to", "")
			action := el.Closest("form").AttrOr("action", "")
			clicked := press(el)
			if got := clicked.Header().Get("HX-Push-Url"); got != to {
				t.Errorf("%s: %s leads to %s, but its data-to says %s", name, action, got, to)
				return
			}
			pre := testkit.Get(t, s, frameOf(t, to, true))
			testkit.MustStatus(t, pre, http.StatusOK)
			if got, want := fill(pre), clicked.Body.String(); got != want {
				t.Errorf("%s: the frame prefetched for %s (%s) differs from the click's answer:\n%s\nwant\n%s", name, action, to, got, want)
			}
			checked++
		})
	}
	// step, back, reset, take over, switch; undo (disabled: none), script, switch, offers; undo, script, switch, offers
	if checked < 10 {
		t.Fatalf("%d controls name their frame, want step, back, reset, take over, switch and free play's", checked)
	}
}

// TestPrefetchNeedsNoRun: a prefetch is a public answer that starts no run,
// sets no cookie and carries no visitor's id, and a bad address gets the
// same 400 a page does.
func TestPrefetchNeedsNoRun(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, target := range []string{
		"/scenarios/gc-pause/frame?fencing=off&step=4&lang=ja",
		"/embed/gc-pause/frame?fencing=on&step=7&lang=en&ids=1",
	} {
		w := testkit.Get(t, s, target, "Cookie", runCookieName+"="+strings.Repeat("ab", 16))
		testkit.MustStatus(t, w, http.StatusOK)
		mustFragment(t, w.Body.Bytes())
		if cc := w.Header().Get("Cache-Control"); !strings.HasPrefix(cc, "public") {
			t.Errorf("%s: Cache-Control %q, want a public answer", target, cc)
		}
		if sc := w.Header().Values("Set-Cookie"); len(sc) > 0 {
			t.Errorf("%s sets %q", target, sc)
		}
		if strings.Contains(w.Body.String(), strings.Repeat("ab", 16)) {
			t.Errorf("%s carries the visitor's run key", target)
		}
		got, named := strings.Contains(w.Body.String(), respond.Marks.Run), w.Header().Get(marksHeader)
		if marks := strings.Contains(target, "ids=1"); got != marks || (named != "") != marks {
			t.Errorf("%s: marks in the answer %v, named in %s %q; want marks %v", target, got, marksHeader, named, marks)
		}
	}
	if n := s.runs.Len(); n != 0 {
		t.Errorf("%d runs after prefetches alone, want 0", n)
	}
	w := testkit.Get(t, s, "/scenarios/gc-pause/frame?fencing=on&step=99&lang=en")
	testkit.MustStatus(t, w, http.StatusBadRequest)
}

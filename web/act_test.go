package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/distlock/fencing-demo/internal/testkit"
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
			if got := doc.Find(`#demo form input[name="present"]`).Length(); got != 4 {
				t.Fatalf("htmx=%v frame %d: %d forms carry presenter mode, want all 4", htmx, k, got)
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
// its first press loaded (and so names the new frame) is an echo: the
// cookie the first answer set says so, and the run stays where the first
// press took it. Another control, or a press without that cookie (a later
// one, once it has expired), moves on.
func TestNoJSDoubleClickEcho(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	press := func(action string, from int, cookies []*http.Cookie) *httptest.ResponseRecorder {
		t.Helper()
		r := testkit.PostRequest("/scenarios/gc-pause/"+action, place{from: from, on: true, lang: "en"}.form(), false)
		for _, c := range cookies {
			r.AddCookie(c)
		}
		w := testkit.Do(t, s, r)
		testkit.MustStatus(t, w, http.StatusSeeOther)
		return w
	}
	step := func(w *httptest.ResponseRecorder) string {
		u, err := url.Parse(w.Header().Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		return u.Query().Get("step")
	}
	first := press("step", 2, nil)
	if got := step(first); got != "3" {
		t.Fatalf("the first press from frame 2 leads to step %s, want 3", got)
	}
	cookies := first.Result().Cookies()
	for _, c := range []struct {
		what, action string
		cookies      []*http.Cookie
		want         string
	}{
		{"the second press, on the page the first loaded", "step", cookies, "3"},
		{"a press on that page without the first's cookie", "step", nil, "4"},
		{"Back on that page", "back", cookies, "2"},
	} {
		if got := step(press(c.action, 3, c.cookies)); got != c.want {
			t.Errorf("%s: leads to step %s, want %s", c.what, got, c.want)
		}
	}
}

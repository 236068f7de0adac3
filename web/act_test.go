package web

import (
	"net/http"
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

package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/distlock/fencing-demo/internal/testkit"
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

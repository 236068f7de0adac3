package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// The challenges' pages: the list, a challenge, and what a submission
// gets, good and bad.

func challengeByID(t *testing.T, s *Server, id string) *demo.Challenge {
	t.Helper()
	ch, ok := s.Catalog().Challenge(id)
	if !ok {
		t.Fatalf("no challenge %s", id)
	}
	return ch
}

// finderBreak is free play at ch's start with the finder's shortest break
// played.
func finderBreak(t *testing.T, ch *demo.Challenge, lang string) views.Place {
	t.Helper()
	prop, _ := ch.Sc.Promise()
	r, err := find.Find(ch.Start(), prop, find.Options{})
	if err != nil || !r.Found {
		t.Fatalf("%s: no break found (%v)", ch.ID, err)
	}
	return views.Place{Place: r.Place(), Lang: lang, FreePlay: true}
}

// submit posts form to ch's submit, follows its 303 and returns the answer.
func submit(t *testing.T, s *Server, ch *demo.Challenge, form url.Values) *httptest.ResponseRecorder {
	t.Helper()
	w := testkit.Post(t, s, views.ChallengeSubmitURL(ch.ID), form, false)
	testkit.MustStatus(t, w, http.StatusSeeOther)
	to := w.Header().Get("Location")
	if !strings.HasPrefix(to, views.ChallengeSubmitURL(ch.ID)+"?") {
		t.Fatalf("the submission leads to %q, want its own address", to)
	}
	return testkit.Get(t, s, to)
}

func TestChallengesListed(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, lang := range []string{"en", "ja"} {
		doc := testkit.Parse(t, testkit.Get(t, s, views.IndexURL(lang)).Body.Bytes())
		if got := testkit.Attr(t, doc, "challenges-link", "href"); got != views.ChallengesURL(lang) {
			t.Errorf("%s: the index links to the challenges at %q", lang, got)
		}
		w := testkit.Get(t, s, views.ChallengesURL(lang))
		testkit.MustStatus(t, w, http.StatusOK)
		list := testkit.Parse(t, w.Body.Bytes())
		for _, ch := range s.Catalog().Challenges() {
			li := list.Find(`[data-testid="challenge-` + ch.ID + `"]`)
			if li.Find(`a[href="`+views.ChallengeURL(ch.ID, lang)+`"]`).Length() == 0 || !strings.Contains(li.Text(), ch.Task.In(lang)) {
				t.Errorf("%s: the list does not show %s's task with its link", lang, ch.ID)
			}
			w := testkit.Get(t, s, views.ChallengeURL(ch.ID, lang))
			testkit.MustStatus(t, w, http.StatusOK)
			page := testkit.Parse(t, w.Body.Bytes())
			if got := testkit.TestID(t, page, "challenge-task"); got != ch.Task.In(lang) {
				t.Errorf("%s %s: task %q", lang, ch.ID, got)
			}
			if got, want := testkit.Attr(t, page, "challenge-work", "href"), views.WorkURL(ch, lang); got != want {
				t.Errorf("%s %s: work on it at %q, want %q", lang, ch.ID, got, want)
			}
		}
	}
	for _, target := range []string{"/challenges/no-such", "/challenges/no-such/submit"} {
		testkit.MustStatus(t, testkit.Get(t, s, target), http.StatusNotFound)
	}
	testkit.MustStatus(t, testkit.Get(t, s, "/challenges?lang=xx"), http.StatusBadRequest)
}

// Free play at a break's start offers "Submit to the challenge"; pressed
// after the finder's shortest, the answer is broken at par, with the par,
// the finder's history and the xAPI statement the embed posts. Elsewhere
// (another frame, the other position) there is no such control.
func TestChallengeBreakSubmitted(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, id := range []string{"gc-pause-break", "release-other-break", "lost-update-break"} {
		ch := challengeByID(t, s, id)
		for _, lang := range []string{"en", "ja"} {
			here := finderBreak(t, ch, lang)
			page := testkit.Parse(t, testkit.Get(t, s, here.URL()).Body.Bytes())
			if page.Find(`[data-testid="submit-`+id+`"]`).Length() != 1 {
				t.Fatalf("%s %s: free play at the challenge's start has no submit control", id, lang)
			}
			w := testkit.Click(t, s, page, "submit-"+id, false)
			testkit.MustStatus(t, w, http.StatusSeeOther)
			w = testkit.Get(t, s, w.Header().Get("Location"))
			testkit.MustStatus(t, w, http.StatusOK)
			doc := testkit.Parse(t, w.Body.Bytes())
			res := doc.Find(`[data-testid="challenge-result"]`)
			if got := res.AttrOr("data-outcome", ""); got != "broken-at-par" {
				t.Fatalf("%s %s: outcome %q, want broken-at-par\n%s", id, lang, got, res.Text())
			}
			var st struct {
				Verb   struct{ ID string }
				Result struct {
					Success    bool
					Extensions map[string]any
				}
			}
			if err := json.Unmarshal([]byte(res.AttrOr("data-xapi", "")), &st); err != nil || !st.Result.Success || !strings.HasSuffix(st.Verb.ID, "/completed") || st.Result.Extensions["https://fencing-demo.example/xapi/at-par"] != true {
				t.Errorf("%s: xAPI statement %q (%v)", id, res.AttrOr("data-xapi", ""), err)
			}
			if doc.Find(`[data-testid="judge-trace"] li`).Length() == 0 || testkit.Attr(t, doc, "challenge-shortest", "href") == "" {
				t.Errorf("%s: a done break shows no finder's history to play", id)
			}
		}
		other := views.Place{Place: ch.Start().Switched(), Lang: "en"}.TakeOver()
		if n := testkit.Parse(t, testkit.Get(t, s, other.URL()).Body.Bytes()).Find(`[data-testid="submit-` + id + `"]`).Length(); n != 0 {
			t.Errorf("%s: free play in the other position offers the challenge", id)
		}
	}
}

// A history that breaks nothing is judged and told so, with what the
// model says of its last frame; a pasted address is read as free play's.
func TestChallengeBreakNotYet(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	ch := challengeByID(t, s, "gc-pause-break")
	here := views.Place{Place: ch.Start(), Lang: "en"}.TakeOver()
	offers, _ := here.Place.Offers()
	here.Place = here.Place.Then(offers[0].Action)
	w := submit(t, s, ch, url.Values{views.AddressField: {"http://example.test" + here.EmbedURL()}, views.LangParam: {"en"}})
	testkit.MustStatus(t, w, http.StatusOK)
	doc := testkit.Parse(t, w.Body.Bytes())
	if got := doc.Find(`[data-testid="challenge-result"]`).AttrOr("data-outcome", ""); got != "not-broken" {
		t.Fatalf("outcome %q, want not-broken", got)
	}
	if !strings.Contains(testkit.TestID(t, doc, "challenge-verdict"), "Not broken yet") || testkit.TestID(t, doc, "challenge-says") == "" {
		t.Errorf("the answer does not say what the model says: %q", testkit.TestID(t, doc, "challenge-verdict"))
	}
}

// Bad submissions: each a page with the right status and a way back.
func TestChallengeBadSubmissions(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	br := challengeByID(t, s, "gc-pause-break")
	fix := challengeByID(t, s, "gc-pause-fix")
	wrongStart := views.Place{Place: br.Start().At(2), Lang: "en"}.TakeOver()
	for _, tc := range []struct {
		name   string
		ch     *demo.Challenge
		target string
		form   url.Values
		status int
	}{
		{"a history that does not parse", br, views.ChallengeSubmitURL(br.ID) + "?fencing=off&step=1&lang=en&play=%21%21", nil, http.StatusBadRequest},
		{"a history from elsewhere", br, "", wrongStart.Form(""), http.StatusBadRequest},
		{"an address of another site's page", br, "", url.Values{views.AddressField: {"https://example.test/somewhere?play=x"}}, http.StatusBadRequest},
		{"a build that does not apply", fix, "", url.Values{views.LangParam: {"en"}, views.SettingField + "fencing": {"maybe"}}, http.StatusBadRequest},
		{"a build code that is none", fix, views.ChallengeSubmitURL(fix.ID) + "?build=%21%21&lang=en", nil, http.StatusBadRequest},
		{"a huge body", br, "", url.Values{"x": {strings.Repeat("a", 2<<20)}}, http.StatusRequestEntityTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w *httptest.ResponseRecorder
			if tc.target != "" {
				w = testkit.Get(t, s, tc.target)
			} else {
				w = testkit.Post(t, s, views.ChallengeSubmitURL(tc.ch.ID), tc.form, false)
			}
			testkit.MustStatus(t, w, tc.status)
			doc := testkit.Parse(t, w.Body.Bytes())
			if testkit.TestID(t, doc, "error-message") == "" || testkit.Attr(t, doc, "continue", "href") == "" {
				t.Errorf("no message or way back:\n%s", w.Body.String())
			}
		})
	}
}

// A fix is judged by the lab's judge: the resource checking tokens is
// fixed, the starter is not, with the judge's shortest break.
func TestChallengeFixSubmitted(t *testing.T) {
	s := judgeServer(t) // a budget no busy machine cuts short of the proof
	ch := challengeByID(t, s, "gc-pause-fix")
	lab := testkit.Parse(t, testkit.Get(t, s, views.LabURL(ch.Sc.ID, "", "en", false)).Body.Bytes())
	if got := testkit.Attr(t, lab, "submit-"+ch.ID, "formaction"); got != views.ChallengeSubmitURL(ch.ID) {
		t.Errorf("the lab's submit posts to %q", got)
	}
	for try, want := range map[string]string{"fencing": "fixed", "starter": "not-fixed"} {
		w := submit(t, s, ch, labForm(tryOf(t, ch.Sc, try).Build, "en"))
		testkit.MustStatus(t, w, http.StatusOK)
		doc := testkit.Parse(t, w.Body.Bytes())
		if got := doc.Find(`[data-testid="challenge-result"]`).AttrOr("data-outcome", ""); got != want {
			t.Errorf("%s: outcome %q, want %q", try, got, want)
		}
		if want == "not-fixed" && doc.Find(`[data-testid="judge-trace"] li`).Length() == 0 {
			t.Errorf("%s: no shortest break shown", try)
		}
		// The judge's own answer tells an embedding host of the lab fixed
		// or tried, beside the challenge's statement.
		raw := doc.Find(`[data-testid="judge-answer"]`).AttrOr("data-xapi", "")
		if verb := map[string]string{"fixed": "/completed", "not-fixed": "/attempted"}[want]; !strings.Contains(raw, verb) || !strings.Contains(raw, `"/scenarios/gc-pause/lab"`) {
			t.Errorf("%s: the judge's statement %s, want %s of the lab", try, raw, verb)
		}
	}
}

// A prediction answered carries its xAPI statement for an embedding host:
// answered, right or not, the option picked, and the frame it was asked on.
func TestPredictionStatement(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for guess, right := range map[string]bool{"accepted": true, "rejected": false} {
		w := testkit.Get(t, s, "/scenarios/gc-pause?fencing=off&step=7&lang=en&guess="+guess)
		testkit.MustStatus(t, w, http.StatusOK)
		doc := testkit.Parse(t, w.Body.Bytes())
		var st struct {
			Verb   struct{ ID string }
			Object struct{ ID string }
			Result struct {
				Success  bool
				Response string
			}
		}
		raw := doc.Find(`[data-testid="predict-result"]`).AttrOr("data-xapi", "")
		if err := json.Unmarshal([]byte(raw), &st); err != nil {
			t.Fatalf("%s: data-xapi %q: %v", guess, raw, err)
		}
		if !strings.HasSuffix(st.Verb.ID, "/answered") || st.Result.Success != right || st.Result.Response != guess || !strings.Contains(st.Object.ID, "step=6") {
			t.Errorf("%s: statement %s, want answered, success %v, the response and the frame asked on (step 6)", guess, raw, right)
		}
	}
}

package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// judgeServer is a server whose judge has the budget of the check command:
// a busy machine changes how long an answer takes, never what it says.
func judgeServer(t *testing.T) *Server {
	t.Helper()
	cfg := DefaultConfig()
	cfg.FindStates, cfg.JudgeTime = 2_000_000, 10*time.Minute
	return newTestServer(t, cfg)
}

// judged is the judge's answer on lab sc's build b in lang, asked as htmx
// asks it.
func judged(t *testing.T, s *Server, sc *demo.Scenario, b demo.Build, lang string) *goquery.Document {
	t.Helper()
	w := testkit.Get(t, s, views.JudgeURL(sc.ID, b.String(), lang), "HX-Request", "true")
	testkit.MustStatus(t, w, http.StatusOK)
	mustFragment(t, w.Body.Bytes())
	return testkit.Parse(t, w.Body.Bytes())
}

// Every lab's tries get from the page the answer the lab states: a wrong
// try broken in its shortest history, with the way to play it as frames; a
// reference solution holding for every history within the bounds, said in
// words with the states counted; a fix that stops everyone never getting
// the work done, with the closest it came. With -short, the wrong tries
// only (their breaks are found at once).
func TestJudgeAnswersEveryTry(t *testing.T) {
	s := judgeServer(t)
	for _, sc := range labsOf(t, s) {
		for _, try := range sc.Lab.Tries {
			if testing.Short() && !strings.HasPrefix(try.Expect, "broken") {
				continue
			}
			t.Run(sc.ID+"/"+try.Name, func(t *testing.T) {
				lang := "en"
				if len(try.Name)%2 == 0 {
					lang = "ja"
				}
				doc := judged(t, s, sc, try.Build, lang)
				if got := testkit.Attr(t, doc, "judge-answer", "data-verdict"); got != try.Expect {
					t.Fatalf("the page's judge says %q, the lab states %q", got, try.Expect)
				}
				switch {
				case strings.HasPrefix(try.Expect, "broken"):
					mustPlayBroken(t, s, doc, try)
				case try.Expect == "holds":
					bounds := testkit.TestID(t, doc, "judge-bounds")
					if !strings.Contains(bounds, map[string]string{"en": "Each client runs its program once", "ja": "各クライアントは自分のプログラムを 1 回"}[lang]) {
						t.Errorf("the answer does not say its bounds: %q", bounds)
					}
					if testkit.Attr(t, doc, "judge-answer", "data-states") == "0" {
						t.Error("the answer counts no states")
					}
				case try.Expect == "never":
					if got := testkit.Attr(t, doc, "judge-play", "href"); !strings.Contains(got, "play=") {
						t.Errorf("the closest it came is no free play: %q", got)
					}
					testkit.MustStatus(t, testkit.Get(t, s, testkit.Attr(t, doc, "judge-play", "href")), http.StatusOK)
				}
			})
		}
	}
}

// mustPlayBroken follows a broken answer's "Play it as frames": the built
// scenario's free play with the shortest history, whose last frame shows
// the finding the answer words.
func mustPlayBroken(t *testing.T, s *Server, doc *goquery.Document, try demo.Try) {
	t.Helper()
	href := testkit.Attr(t, doc, "judge-play", "href")
	if !strings.Contains(href, "build="+views.EncodeBuild(try.Build.String())) || !strings.Contains(href, "play=") {
		t.Fatalf("Play it as frames leads to %q: not the build's free play", href)
	}
	if got, want := doc.Find(`[data-testid="judge-trace"] li`).Length(), len(strings.Fields(try.Expect))-2; want == 1 && got == 0 {
		t.Fatalf("the answer lists no history")
	}
	w := testkit.Get(t, s, href)
	testkit.MustStatus(t, w, http.StatusOK)
	frame := testkit.Parse(t, w.Body.Bytes())
	finding := testkit.TestID(t, doc, "judge-finding")
	verdict := testkit.TestID(t, frame, "verdict")
	if !strings.Contains(verdict, finding) && !strings.Contains(testkit.TestID(t, frame, "violations"), finding) {
		t.Errorf("the answer's finding %q is not what the last frame shows: %q", finding, verdict)
	}
}

// Without JavaScript, "Judge my fix" posts the form and lands on the
// answer's own page, with the way back to the lab with the build; with
// htmx, the form's post answers the box and the lab's address.
func TestJudgeFromTheForm(t *testing.T) {
	s := judgeServer(t)
	sc := testkit.Scenario(t, "lost-update")
	try := tryOf(t, sc, "starter")
	w := testkit.Post(t, s, views.LabAction(sc.ID)+"/judge", labForm(try.Build, "ja"), false)
	testkit.MustStatus(t, w, http.StatusSeeOther)
	page := testkit.Get(t, s, w.Header().Get("Location"))
	testkit.MustStatus(t, page, http.StatusOK)
	doc := testkit.Parse(t, page.Body.Bytes())
	if got := testkit.Attr(t, doc, "judge-answer", "data-verdict"); got != try.Expect {
		t.Errorf("the answer's page says %q, want %q", got, try.Expect)
	}
	if got, want := testkit.Attr(t, doc, "judge-back", "href"), views.LabURL(sc.ID, try.Build.String(), "ja", false); got != want {
		t.Errorf("back to the lab=%q, want %q", got, want)
	}
	w = testkit.Post(t, s, views.LabAction(sc.ID)+"/judge", labForm(try.Build, "ja"), true)
	testkit.MustStatus(t, w, http.StatusOK)
	mustFragment(t, w.Body.Bytes())
	if got, want := w.Header().Get("HX-Replace-Url"), views.LabURL(sc.ID, try.Build.String(), "ja", false); got != want {
		t.Errorf("the judge's answer names the address %q, want %q", got, want)
	}
}

// A build that does not play gets the judge's clear answer, never a 500:
// the part and the line, in the box with htmx (a 400 htmx swaps in), on
// the error page without, whose way back keeps the learner's text.
func TestJudgeBadBuild(t *testing.T) {
	s := judgeServer(t)
	sc := testkit.Scenario(t, "lost-update")
	wrong := demo.Build{Programs: map[string][]string{"A": {"sql BEGIN", "sql FETCH ALL"}, "B": {}}}
	w := testkit.Get(t, s, views.JudgeURL(sc.ID, wrong.String(), "en"), "HX-Request", "true")
	testkit.MustStatus(t, w, http.StatusBadRequest)
	doc := testkit.Parse(t, w.Body.Bytes())
	if got := testkit.TestID(t, doc, "judge-error"); !strings.Contains(got, "program A, line 2") {
		t.Errorf("the box says %q, want program A's line 2 named", got)
	}
	w = testkit.Post(t, s, views.LabAction(sc.ID)+"/judge", labForm(wrong, "ja"), true)
	testkit.MustStatus(t, w, http.StatusBadRequest)
	if got := testkit.TestID(t, testkit.Parse(t, w.Body.Bytes()), "judge-error"); !strings.Contains(got, "A のプログラム の 2 行目") {
		t.Errorf("the box says %q in Japanese", got)
	}
	w = testkit.Get(t, s, views.JudgeURL(sc.ID, wrong.String(), "en"))
	testkit.MustStatus(t, w, http.StatusBadRequest)
	doc = testkit.Parse(t, w.Body.Bytes())
	if got, want := testkit.Attr(t, doc, "continue", "href"), views.LabURL(sc.ID, wrong.String(), "en", false); got != want {
		t.Errorf("the way back is %q, want the lab with the text %q", got, want)
	}
	testkit.MustStatus(t, testkit.Get(t, s, views.JudgeURL(sc.ID, "", "en")+"&build=notours"), http.StatusBadRequest)
}

// The judge goes through the gate of expensive answers (gate.go): while
// every slot is taken past the wait, it answers 503 with Retry-After, in
// the box with htmx, and nothing is kept.
func TestJudgeThroughTheGate(t *testing.T) {
	s := judgeServer(t)
	sc := testkit.Scenario(t, "deadlock")
	u := views.JudgeURL(sc.ID, tryOf(t, sc, "lock-order").Build.String(), "en")
	s.expensive.wait = time.Millisecond
	var leaves []func()
	for i := range s.expensive.slots {
		leave, _, ok := s.expensive.enter(context.Background(), "198.51.100."+strconv.Itoa(i))
		if !ok {
			t.Fatal("the gate is shut from the start")
		}
		leaves = append(leaves, leave)
	}
	r := httptest.NewRequest(http.MethodGet, u, nil)
	r.Header.Set("HX-Request", "true")
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	testkit.MustStatus(t, w, http.StatusServiceUnavailable)
	if w.Header().Get("Retry-After") == "" {
		t.Error("a judgement turned away says not when to try again")
	}
	if got := testkit.TestID(t, testkit.Parse(t, w.Body.Bytes()), "judge-error"); got == "" {
		t.Error("the box says nothing")
	}
	for _, leave := range leaves {
		leave()
	}
	testkit.MustStatus(t, testkit.Get(t, s, u, "HX-Request", "true"), http.StatusOK)
}

// A room that judges one build at once costs one search, and the answer is
// kept: asked again, from any address, it searches no more. An answer the
// time cut short says so, and is not kept.
func TestJudgeSharedAndKept(t *testing.T) {
	s := judgeServer(t)
	sc := testkit.Scenario(t, "flash-sale")
	u := views.JudgeURL(sc.ID, tryOf(t, sc, "conditional").Build.String(), "en")
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := httptest.NewRequest(http.MethodGet, u, nil)
			r.RemoteAddr = "198.51.100." + itoa(i+1) + ":1234"
			r.Header.Set("HX-Request", "true")
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				t.Errorf("judge %d: status %d", i, w.Code)
			}
		}()
	}
	wg.Wait()
	testkit.MustStatus(t, testkit.Get(t, s, u, "HX-Request", "true"), http.StatusOK)
	if got := s.judges.searches.Load(); got != 1 {
		t.Errorf("six learners and one more judging one build cost %d searches, want 1", got)
	}

	cfg := DefaultConfig()
	cfg.JudgeTime = time.Nanosecond
	cut := newTestServer(t, cfg)
	for range 2 {
		doc := testkit.Parse(t, testkit.Get(t, cut, u, "HX-Request", "true").Body.Bytes())
		if got := testkit.Attr(t, doc, "judge-answer", "data-verdict"); !strings.HasPrefix(got, "holds to") {
			t.Errorf("a judgement out of time says %q, want holds to a depth", got)
		}
		if got := testkit.TestID(t, doc, "judge-cut"); !strings.Contains(got, "time ran out") {
			t.Errorf("a judgement out of time does not say so: %q", got)
		}
	}
	if got := cut.judges.searches.Load(); got != 2 {
		t.Errorf("an answer the time cut short was kept: %d searches for two asks, want 2", got)
	}
}

package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/views/guidedata"
)

// The guide's tests read both pages as a visitor would: the right words in
// the right language, every link to the demo opening a real frame, each quiz
// answer closed until asked for, and the Japanese and English pages holding
// the same tree and the same questions.

// guidePages are the guide's pages: where each lives and the key of its <h1>.
var guidePages = []struct {
	name, path, h1 string
}{
	{"tree", "/guide/decision-tree", "guide.tree.title"},
	{"quiz", "/guide/quiz", "guide.quiz.title"},
}

// getGuide fetches a guide page in lang and parses it; it must be a 200.
func getGuide(tb testing.TB, s *Server, path, lang string) *goquery.Document {
	tb.Helper()
	w := testkit.Get(tb, s, path+"?lang="+lang)
	testkit.MustStatus(tb, w, http.StatusOK)
	return testkit.Parse(tb, w.Body.Bytes())
}

// squash collapses the white space of a selection's text.
func squash(sel *goquery.Selection) string { return strings.Join(strings.Fields(sel.Text()), " ") }

// Both pages answer in both languages with their title, their headings, the
// language switch and their canonical address.
func TestGuidePages(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, p := range guidePages {
		for _, lang := range []string{"ja", "en"} {
			t.Run(p.name+"/"+lang, func(t *testing.T) {
				doc := getGuide(t, s, p.path, lang)
				other := p.path + "?lang=" + views.OtherLang(lang)
				if got := doc.Find("html").AttrOr("lang", ""); got != lang {
					t.Fatalf("html lang=%q, want %q", got, lang)
				}
				if got, want := squash(doc.Find("h1")), views.T(lang, p.h1); got != want {
					t.Fatalf("h1=%q, want %q", got, want)
				}
				if got, want := doc.Find("title").Text(), views.T(lang, p.h1)+" · "+views.T(lang, "site"); got != want {
					t.Fatalf("title=%q, want %q", got, want)
				}
				if n := doc.Find(`link[rel="canonical"]`).Length(); n != 0 {
					t.Fatalf("%d rel=canonical links, want none without a public address", n)
				}
				if got := testkit.Attr(t, doc, "lang", "href"); got != other {
					t.Fatalf("language switch=%q, want %q", got, other)
				}
				if got := testkit.Attr(t, doc, "lang", "hreflang"); got != views.OtherLang(lang) {
					t.Fatalf("language switch hreflang=%q, want %q", got, views.OtherLang(lang))
				}
				if got := testkit.Attr(t, doc, "nav-"+p.name, "aria-current"); got != "page" {
					t.Fatalf("header link to this page: aria-current=%q, want page", got)
				}

				var h2 []string
				doc.Find("main h2").Each(func(_ int, h *goquery.Selection) { h2 = append(h2, squash(h)) })
				var want []string
				if p.name == "tree" {
					want = []string{views.T(lang, "guide.tree.walk"), views.T(lang, "guide.conclusion")}
				} else {
					for i, q := range testkit.Guide(t).Quiz {
						want = append(want, "Q"+strconv.Itoa(i+1)+" "+q.Ask.In(lang))
						if lang == "ja" {
							want[i] = "問 " + strconv.Itoa(i+1) + " " + q.Ask.In(lang)
						}
					}
				}
				if !slices.Equal(h2, want) {
					t.Fatalf("h2 headings:\n got %q\nwant %q", h2, want)
				}
				mustBeAccessible(t, doc)

				// A key missing from the messages table shows as itself.
				if key := regexp.MustCompile(`\bguide\.[a-z]`).FindString(doc.Find("body").Text()); key != "" {
					t.Fatalf("the page shows a message key: %q", key)
				}
			})
		}
		t.Run(p.name+"/head", func(t *testing.T) {
			w := testkit.Do(t, s, httptest.NewRequest(http.MethodHead, p.path+"?lang=en", nil))
			testkit.MustStatus(t, w, http.StatusOK)
		})
		t.Run(p.name+"/accept-language", func(t *testing.T) {
			w := testkit.Get(t, s, p.path, "Accept-Language", "ja,en;q=0.5")
			testkit.MustStatus(t, w, http.StatusOK)
			if got := testkit.Parse(t, w.Body.Bytes()).Find("html").AttrOr("lang", ""); got != "ja" {
				t.Fatalf("html lang=%q, want ja from Accept-Language", got)
			}
		})
	}
}

// mustBeAccessible checks the basics a screen reader relies on: one <h1>
// first, no skipped heading level, the layout's landmarks, every link named
// by its text, and no id used twice (the quiz links to the tree's ids).
func mustBeAccessible(tb testing.TB, doc *goquery.Document) {
	tb.Helper()
	prev := 0
	doc.Find("h1, h2, h3, h4, h5, h6").Each(func(i int, h *goquery.Selection) {
		level := int(goquery.NodeName(h)[1] - '0')
		if i == 0 && level != 1 {
			tb.Fatalf("the first heading is h%d, want h1", level)
		}
		if level > prev+1 {
			tb.Fatalf("heading %q: h%d after h%d skips a level", squash(h), level, prev)
		}
		if squash(h) == "" {
			tb.Fatalf("an empty h%d", level)
		}
		prev = level
	})
	if n := doc.Find("h1").Length(); n != 1 {
		tb.Fatalf("%d h1, want 1", n)
	}
	for _, landmark := range []string{"header", "main", "header nav[aria-label]"} {
		if doc.Find(landmark).Length() == 0 {
			tb.Fatalf("no %s", landmark)
		}
	}
	doc.Find("a").Each(func(_ int, a *goquery.Selection) {
		if squash(a) == "" && a.AttrOr("aria-label", "") == "" {
			tb.Fatalf("a link with no text: %s", a.AttrOr("href", "(no href)"))
		}
		if a.AttrOr("href", "") == "" {
			tb.Fatalf("link %q has no href", squash(a))
		}
	})
	seen := map[string]bool{}
	doc.Find("[id]").Each(func(_ int, e *goquery.Selection) {
		id := e.AttrOr("id", "")
		if seen[id] {
			tb.Fatalf("id %q used twice", id)
		}
		seen[id] = true
	})
}

// demoLinks returns the addresses of the links into the demo under sel.
func demoLinks(sel *goquery.Selection) []string {
	var hrefs []string
	sel.Find(`a[href^="/scenarios/"]`).Each(func(_ int, a *goquery.Selection) {
		hrefs = append(hrefs, a.AttrOr("href", ""))
	})
	return hrefs
}

// mustBeFrame checks that href is the address of a frame that exists, in
// lang, spelled as views.FrameURL spells it, and that the frame opens. It
// returns the scenario's id.
func mustBeFrame(tb testing.TB, s *Server, href, lang string) string {
	tb.Helper()
	u, err := url.Parse(href)
	if err != nil {
		tb.Fatalf("link %q: %v", href, err)
	}
	id := strings.TrimPrefix(u.Path, "/scenarios/")
	sc, ok := s.catalog.Get(id)
	if !ok {
		tb.Fatalf("link %q: no scenario %q in the catalog", href, id)
	}
	q := u.Query()
	sw := q.Get(sc.Switch)
	if sw != "on" && sw != "off" {
		tb.Fatalf("link %q: %s=%q, want on or off", href, sc.Switch, sw)
	}
	step, err := strconv.Atoi(q.Get("step"))
	if err != nil || step < 1 || step > sc.Frames() {
		tb.Fatalf("link %q: step %q is not a frame of %s (1 to %d)", href, q.Get("step"), id, sc.Frames())
	}
	if got := q.Get("lang"); got != lang {
		tb.Fatalf("link %q: lang=%q, want %q", href, got, lang)
	}
	if want := views.FrameURL(sc, sw == "on", step, lang); href != want {
		tb.Fatalf("link %q, want it spelled %q", href, want)
	}
	testkit.MustStatus(tb, testkit.Get(tb, s, href), http.StatusOK)
	return id
}

// Every link from a leaf or an answer opens a frame of a scenario in the
// catalog, and each says what the chapter ties it to.
func TestGuideLinks(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	if missing := s.guide.Missing(s.catalog); len(missing) > 0 {
		t.Fatalf("the guide links to scenarios not in scenarios.yaml: %v", missing)
	}
	// The page would quietly open the last frame for a step past the end.
	for _, l := range s.guide.Links() {
		sc, _ := s.catalog.Get(l.ID)
		if l.Step != guidedata.LastStep && (l.Step < 1 || l.Step > sc.Frames()) {
			t.Fatalf("link to %s: step %d is not a frame (1 to %d, or LastStep)", l.ID, l.Step, sc.Frames())
		}
	}
	// What each leaf and answer must link to at least: the places each
	// scenario of scenarios.yaml names under expect: guide.
	wantLeaf, wantAnswer := map[string][]string{}, map[int][]string{}
	for _, sc := range s.catalog.Scenarios {
		for _, leaf := range sc.Guide.Tree {
			wantLeaf["tree-"+leaf] = append(wantLeaf["tree-"+leaf], sc.ID)
		}
		for _, q := range sc.Guide.Quiz {
			wantAnswer[q] = append(wantAnswer[q], sc.ID)
		}
	}
	for _, lang := range []string{"ja", "en"} {
		t.Run("tree/"+lang, func(t *testing.T) {
			doc := getGuide(t, s, "/guide/decision-tree", lang)
			leaves := doc.Find(`[data-testid="tree-leaf"]`)
			met := map[string]bool{}
			leaves.Each(func(_ int, leaf *goquery.Selection) {
				name := leaf.AttrOr("id", "")
				met[name] = true
				var ids []string
				for _, href := range demoLinks(leaf) {
					ids = append(ids, mustBeFrame(t, s, href, lang))
				}
				for _, id := range wantLeaf[name] {
					if !slices.Contains(ids, id) {
						t.Fatalf("leaf %s links %v, want %s among them (its expect: guide)", name, ids, id)
					}
				}
				if len(ids) > 0 && len(wantLeaf[name]) == 0 {
					t.Fatalf("leaf %s links %v, and none of them names it under expect: guide", name, ids)
				}
				if len(ids) == 0 && squash(leaf.Find(".nodemo")) == "" {
					t.Fatalf("leaf %s links no scenario and does not say why", name)
				}
			})
			for name, ids := range wantLeaf {
				if !met[name] {
					t.Fatalf("%v name the leaf %s under expect: guide, which the tree does not have", ids, name)
				}
			}
		})
		t.Run("quiz/"+lang, func(t *testing.T) {
			doc := getGuide(t, s, "/guide/quiz", lang)
			tree := getGuide(t, s, "/guide/decision-tree", lang)
			answers := doc.Find(`[data-testid="quiz-answer"]`)
			for q, ids := range wantAnswer {
				if q > answers.Length() {
					t.Fatalf("%v name Q%d under expect: guide, and the quiz has %d questions", ids, q, answers.Length())
				}
			}
			answers.Each(func(i int, a *goquery.Selection) {
				var ids []string
				for _, href := range demoLinks(a) {
					ids = append(ids, mustBeFrame(t, s, href, lang))
				}
				for _, id := range wantAnswer[i+1] {
					if !slices.Contains(ids, id) {
						t.Fatalf("Q%d links %v, want %s among them (its expect: guide)", i+1, ids, id)
					}
				}
				if len(ids) > 0 && len(wantAnswer[i+1]) == 0 {
					t.Fatalf("Q%d links %v, and none of them names it under expect: guide", i+1, ids)
				}
				if len(ids) == 0 && squash(a.Find(".nodemo")) == "" {
					t.Fatalf("Q%d links no scenario and does not say so", i+1)
				}
				// A link into the tree lands on a node that is there.
				a.Find(`[data-testid="quiz-tree"]`).Each(func(_ int, l *goquery.Selection) {
					href := l.AttrOr("href", "")
					base, frag, _ := strings.Cut(href, "#")
					if base != views.GuideTreeURL(lang) || frag == "" {
						t.Fatalf("Q%d: tree link %q, want %s#<node>", i+1, href, views.GuideTreeURL(lang))
					}
					if tree.Find("#"+frag).Length() != 1 {
						t.Fatalf("Q%d: tree link %q: no element with id %q on the tree page", i+1, href, frag)
					}
				})
				if len(ids) == 0 && a.Find(`[data-testid="quiz-tree"]`).Length() == 0 {
					t.Fatalf("Q%d links neither a scenario nor the decision tree", i+1)
				}
			})
		})
	}
}

// Each answer is inside a closed <details>, below its <summary>: hidden
// until the visitor opens it, and that needs no JavaScript.
func TestGuideQuizAnswersHidden(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, lang := range []string{"ja", "en"} {
		doc := getGuide(t, s, "/guide/quiz", lang)
		doc.Find(`[data-testid="quiz-question"]`).Each(func(i int, q *goquery.Selection) {
			a := q.Find(`[data-testid="quiz-answer"]`)
			if a.Length() != 1 {
				t.Fatalf("%s Q%d: %d answers, want 1", lang, i+1, a.Length())
			}
			d := a.ParentsFiltered("details")
			if d.Length() != 1 {
				t.Fatalf("%s Q%d: the answer is in %d <details>, want 1", lang, i+1, d.Length())
			}
			if _, open := d.Attr("open"); open {
				t.Fatalf("%s Q%d: <details open> shows the answer before it is asked for", lang, i+1)
			}
			sum := d.Children().First()
			if goquery.NodeName(sum) != "summary" || squash(sum) == "" {
				t.Fatalf("%s Q%d: the <details> does not start with a <summary> that says what it opens", lang, i+1)
			}
			if a.ParentsFiltered("summary").Length() > 0 {
				t.Fatalf("%s Q%d: the answer is inside the <summary>, which is always shown", lang, i+1)
			}
			if q.Find("h2").ParentsFiltered("details").Length() > 0 {
				t.Fatalf("%s Q%d: the question is hidden with its answer", lang, i+1)
			}
			if squash(a) == "" {
				t.Fatalf("%s Q%d: an empty answer", lang, i+1)
			}
		})
	}
}

// japanese matches kana and kanji.
var japanese = regexp.MustCompile(`[\p{Hiragana}\p{Katakana}\p{Han}]`)

// The Japanese and English pages hold the same tree and the same questions,
// each in its own language, with nothing left empty.
func TestGuideSameInBothLanguages(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	parts := []struct {
		page, testid string
		want         int
	}{
		{"/guide/decision-tree", "tree-leaf", len(testkit.Guide(t).Tree.Leaves())},
		{"/guide/quiz", "quiz-question", len(testkit.Guide(t).Quiz)},
		{"/guide/quiz", "quiz-answer", len(testkit.Guide(t).Quiz)},
	}
	for _, p := range parts {
		var shapes [2][]int // per item: paragraphs, list items, links
		for i, lang := range []string{"ja", "en"} {
			doc := getGuide(t, s, p.page, lang)
			if n := doc.Find(`[data-testid="tree"]`).Length(); p.page == "/guide/decision-tree" && n != 1 {
				t.Fatalf("%s: %d trees, want 1", lang, n)
			}
			items := doc.Find(`[data-testid="` + p.testid + `"]`)
			if got := items.Length(); got != p.want {
				t.Fatalf("%s %s: %d, want %d", lang, p.testid, got, p.want)
			}
			items.Each(func(k int, item *goquery.Selection) {
				text := squash(item)
				if got := japanese.MatchString(text); got != (lang == "ja") {
					t.Fatalf("%s %s %d is not in %s: %q", lang, p.testid, k+1, lang, text)
				}
				item.Find("p, li, a, summary, h2, strong").Each(func(_ int, e *goquery.Selection) {
					if squash(e) == "" {
						t.Fatalf("%s %s %d: an empty <%s>", lang, p.testid, k+1, goquery.NodeName(e))
					}
				})
				shapes[i] = append(shapes[i], item.Find("p").Length(), item.Find("li").Length(), item.Find("a").Length())
			})
		}
		if !slices.Equal(shapes[0], shapes[1]) {
			t.Fatalf("%s: the Japanese and English pages differ in shape:\nja %v\nen %v", p.testid, shapes[0], shapes[1])
		}
	}
}

// A bad lang is the usual 400 page, in the browser's language, whose way on
// is the same guide page.
func TestGuideBadLang(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, p := range guidePages {
		for _, accept := range []string{"en", "ja"} {
			w := testkit.Get(t, s, p.path+"?lang=fr", "Accept-Language", accept)
			testkit.MustStatus(t, w, http.StatusBadRequest)
			doc := testkit.Parse(t, w.Body.Bytes())
			if got := doc.Find("html").AttrOr("lang", ""); got != accept {
				t.Fatalf("%s: html lang=%q, want %q", p.name, got, accept)
			}
			if msg := testkit.TestID(t, doc, "error-message"); !strings.Contains(msg, `"fr"`) {
				t.Fatalf("%s: error-message=%q, want it to name \"fr\"", p.name, msg)
			}
			if got, want := testkit.Attr(t, doc, "continue", "href"), p.path+"?lang="+accept; got != want {
				t.Fatalf("%s: continue=%q, want %q", p.name, got, want)
			}
		}
	}
}

// The site's header links to the guide; the embedded demo, which has no
// header, does not.
func TestGuideInHeader(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	doc := testkit.Parse(t, testkit.Get(t, s, "/scenarios?lang=ja").Body.Bytes())
	if got, want := testkit.Attr(t, doc, "nav-tree", "href"), views.GuideTreeURL("ja"); got != want {
		t.Fatalf("header link to the tree=%q, want %q", got, want)
	}
	if got, want := testkit.Attr(t, doc, "nav-quiz", "href"), views.GuideQuizURL("ja"); got != want {
		t.Fatalf("header link to the quiz=%q, want %q", got, want)
	}
	if _, ok := doc.Find(`[data-testid="nav-tree"]`).Attr("aria-current"); ok {
		t.Fatal("the index marks the tree as the current page")
	}
	embed := testkit.Parse(t, testkit.Get(t, s, "/embed/gc-pause?lang=en").Body.Bytes())
	if n := embed.Find(`a[href^="/guide/"]`).Length(); n != 0 {
		t.Fatalf("the embedded demo has %d links to the guide, want 0", n)
	}
}

// The decision tree walked one question at a time, as a reader without
// JavaScript does: from the whole tree's "walk it" link, each page asks one
// question with its answers as links, the trail lists the answers given so
// far, and the walk always follows the last answer down to a leaf, whose
// page gives the advice and links back to the whole tree. Both languages.
func TestGuideWalk(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, lang := range []string{"ja", "en"} {
		t.Run(lang, func(t *testing.T) {
			doc := getGuide(t, s, "/guide/decision-tree", lang)
			next := doc.Find(`[data-testid="walk-start"]`).AttrOr("href", "")
			if next == "" {
				t.Fatal("the whole tree has no link to walk it one question at a time")
			}
			var given []string // the answers taken so far
			for depth := 1; ; depth++ {
				w := testkit.Get(t, s, next)
				testkit.MustStatus(t, w, http.StatusOK)
				doc := testkit.Parse(t, w.Body.Bytes())
				if got := doc.Find("html").AttrOr("lang", ""); got != lang {
					t.Fatalf("%s: html lang=%q, want %q", next, got, lang)
				}
				// The trail: one entry per answer given, each naming it.
				trail := doc.Find(`[data-testid="walk-trail"] li`)
				if got, want := trail.Length(), len(given); got != want {
					t.Fatalf("%s: the trail has %d answers, want %d (%q)", next, got, want, given)
				}
				trail.Each(func(i int, li *goquery.Selection) {
					if got := squash(li.Find(".walk-given")); !strings.Contains(got, given[i]) {
						t.Errorf("%s: trail entry %d reads %q, want the answer %q", next, i+1, got, given[i])
					}
				})
				if doc.Find(`[data-testid="walk-whole"]`).Length() != 1 {
					t.Errorf("%s: no link to the whole tree", next)
				}
				// Only this page's point: no other question is on it.
				if n := doc.Find(`[data-testid="tree"], .tree-q`).Length(); n != 0 {
					t.Fatalf("%s: the page holds the whole tree (%d questions of it)", next, n)
				}
				qs := doc.Find(`[data-testid="walk-question"]`)
				if leaf := doc.Find(`[data-testid="walk"] [data-testid="tree-leaf"]`); leaf.Length() == 1 {
					if qs.Length() != 0 {
						t.Fatalf("%s: a leaf page also asks %d question(s)", next, qs.Length())
					}
					if squash(leaf.Find("h2")) == "" {
						t.Fatalf("%s: the leaf gives no advice", next)
					}
					if depth < 2 {
						t.Fatalf("the walk ended at its first page")
					}
					return
				}
				if qs.Length() != 1 || squash(qs) == "" {
					t.Fatalf("%s: %d questions on the page, want exactly one", next, qs.Length())
				}
				answers := doc.Find(`[data-testid="walk-answer"]`)
				if answers.Length() < 2 {
					t.Fatalf("%s: %d answers, want at least two to choose from", next, answers.Length())
				}
				last := answers.Last()
				given = append(given, squash(last))
				next = last.AttrOr("href", "")
				if !strings.Contains(next, "lang="+lang) {
					t.Fatalf("answer link %q leaves the language %s", next, lang)
				}
				if depth > 20 {
					t.Fatal("the walk did not reach a leaf in 20 questions")
				}
			}
		})
	}
	t.Run("unknown-point", func(t *testing.T) {
		w := testkit.Get(t, s, views.GuideWalkURL("en", "no-such-point"))
		testkit.MustStatus(t, w, http.StatusNotFound)
		doc := testkit.Parse(t, w.Body.Bytes())
		if !strings.Contains(doc.Text(), "no-such-point") {
			t.Errorf("the 404 page does not name the point asked for")
		}
	})
}

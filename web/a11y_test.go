package web

// The accessibility test: what a visitor with a screen reader, a keyboard, a
// zoomed or narrow screen, or a wish for less motion gets from the demo. axe
// (testdata/axe, vendored from the axe-core npm package) checks each page
// against WCAG 2 A/AA and its best practices; the rest are the checks axe
// cannot make: the live region after a click, a visible focus on every stop
// of the Tab key, reflow at 360 px and at 200 % zoom, reduced motion, and
// marks that do not rely on colour alone.
//
//	go test -run A11y -v .      # needs Chromium, as the browser test does

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

const a11yBudget = 5 * time.Minute // the whole test, browser start included

func TestA11y(t *testing.T) {
	axeJS, err := os.ReadFile("testdata/axe/axe.min.js")
	if err != nil {
		t.Fatalf("axe-core is vendored at testdata/axe/axe.min.js: %v", err)
	}
	catalog := testkit.Catalog(t)
	gc, ok := catalog.Get("gc-pause")
	if !ok {
		t.Fatal("scenario gc-pause is missing from scenarios.yaml")
	}
	srv := httptest.NewServer(newTestServer(t, DefaultConfig()))
	t.Cleanup(srv.Close)
	browser := testkit.Chromium(t, a11yBudget)
	env := &browserEnv{browser: browser, base: srv.URL, sc: gc}

	t.Run("axe", func(t *testing.T) {
		b := openTab(t, env, 3*time.Minute)
		// DevTools evaluates the vendored file although the page's CSP
		// allows only its own scripts; the same CSP still stops a script
		// the page itself would run inline. Both are checked once here.
		b.do(chromedp.Navigate(srv.URL + views.FrameURL(gc, true, 1, "en")))
		b.do(chromedp.Evaluate[chromedp.Void](string(axeJS)))
		csp, err := chromedp.Run(b.ctx, chromedp.Evaluate[struct {
			Axe    bool `json:"axe"`
			Inline bool `json:"inline"`
		}](`(() => {
			const s = document.createElement('script');
			s.textContent = 'window.__inlineRan = true';
			document.head.append(s);
			return {axe: typeof axe === 'object' && typeof axe.run === 'function', inline: window.__inlineRan === true};
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		if !csp.Axe {
			t.Fatal("axe is not defined after evaluating testdata/axe/axe.min.js through DevTools")
		}
		if csp.Inline {
			t.Error("an inline script ran: the page's Content-Security-Policy is not in force, so this test proves nothing about DevTools getting past it")
		}
		// And axe does find a fault when there is one: an image with no
		// alternative text, added for a moment.
		found, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`(() => {
			const img = document.createElement('img');
			img.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
			document.querySelector('main').append(img);
			return axe.run(img, {runOnly: ['image-alt']}).then(r => { img.remove(); return r.violations.map(v => v.id); });
		})()`, chromedp.EvalAwaitPromise))
		if err != nil || len(found) != 1 || found[0] != "image-alt" {
			t.Fatalf("axe on an <img> with no alt found %q (err %v), want [image-alt]: the check below would prove nothing", found, err)
		}

		// Every scenario's first frame in both languages, loaded, then its
		// last frame as the End key brings it (an htmx swap in the same
		// document), and for the chapter's scenario the switch flipped
		// there too: the unsafe verdict has colours of its own. Then the
		// scenario index, an error page, the embed view and presenter mode.
		type visit struct {
			name, path string
			sc         *demo.Scenario // nil: a page of its own
			lang       string
		}
		var visits []visit
		for _, sc := range catalog.Scenarios {
			for _, lang := range []string{"en", "ja"} {
				visits = append(visits, visit{sc.ID + "/" + lang, views.FrameURL(sc, sc.Default, 1, lang), sc, lang})
			}
		}
		for _, lang := range []string{"en", "ja"} {
			visits = append(visits,
				visit{name: "index/" + lang, path: "/scenarios?lang=" + lang},
				visit{name: "error/" + lang, path: "/scenarios/nope?lang=" + lang},
				visit{name: "embed/" + lang, path: "/embed/gc-pause?fencing=off&step=7&lang=" + lang},
				visit{name: "decision-tree/" + lang, path: "/guide/decision-tree?lang=" + lang},
				visit{name: "quiz/" + lang, path: "/guide/quiz?lang=" + lang},
			)
		}
		visits = append(visits, visit{name: "present/en", path: "/scenarios/gc-pause?fencing=off&step=7&lang=en&present=1"})
		// A prediction: the question before the move, and the answer
		// marked after it, right and wrong, in both languages and on the
		// projector (predict.templ).
		for _, lang := range []string{"en", "ja"} {
			visits = append(visits,
				visit{name: "predict-ask/" + lang, path: "/scenarios/gc-pause?fencing=on&step=6&lang=" + lang},
				visit{name: "predict-right/" + lang, path: "/scenarios/gc-pause?fencing=on&step=7&guess=rejected&lang=" + lang},
				visit{name: "predict-wrong/" + lang, path: "/scenarios/gc-pause?fencing=off&step=7&guess=rejected&lang=" + lang},
				visit{name: "predict-ask-present/" + lang, path: "/scenarios/gc-pause?fencing=on&step=6&present=1&lang=" + lang},
				visit{name: "predict-wrong-present/" + lang, path: "/scenarios/gc-pause?fencing=on&step=7&guess=accepted&present=1&lang=" + lang},
			)
		}
		// The decision tree one question at a time, at a question and at
		// a leaf, and presenter mode where the panels scroll inside.
		for _, lang := range []string{"en", "ja"} {
			visits = append(visits,
				visit{name: "decision-walk/" + lang, path: views.GuideWalkURL(lang, "correctness")},
				visit{name: "decision-walk-leaf/" + lang, path: views.GuideWalkURL(lang, "database")},
			)
		}
		for _, id := range []string{"zookeeper-recipe", "deadlock"} {
			if sc, ok := catalog.Get(id); ok {
				visits = append(visits, visit{name: "present-" + id + "/en", path: views.FrameURL(sc, sc.Default, sc.Frames(), "en") + "&present=1"})
			}
		}
		// The key help is a modal dialog: checked open, on its own.
		t.Run("help-dialog/en", func(t *testing.T) {
			b := b.in(t)
			b.do(chromedp.Navigate(srv.URL+views.FrameURL(gc, true, 3, "en")),
				chromedp.Evaluate[chromedp.Void](`document.getElementById('help').showModal()`))
			b.checkAxe(axeJS, "help dialog")
		})
		// The visits, shared out between two tabs that run at once: axe is
		// most of this test's time, and a renderer keeps one core busy.
		const tabs = 2
		for n := range tabs {
			t.Run(fmt.Sprintf("tab%d", n+1), func(t *testing.T) {
				t.Parallel()
				b := openTab(t, env, 3*time.Minute)
				if _, err := chromedp.Call(b.ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
					t.Fatal(err)
				}
				for i, v := range visits {
					if i%tabs != n {
						continue
					}
					t.Run(v.name, func(t *testing.T) {
						b := b.in(t)
						b.do(chromedp.Navigate(srv.URL + v.path))
						b.checkAxe(axeJS, v.path)
						if v.sc == nil {
							return
						}
						last := views.FrameURL(v.sc, v.sc.Default, v.sc.Frames(), v.lang)
						b.bodyFocus()
						b.do(chromedp.KeyEvent(kb.End))
						b.waitSettled(last)
						b.checkAxe(axeJS, last+" (after End)")
						if v.sc == gc {
							switched := views.FrameURL(v.sc, !v.sc.Default, v.sc.Frames(), v.lang)
							b.bodyFocus()
							b.do(chromedp.KeyEvent("f"))
							b.waitSettled(switched)
							b.checkAxe(axeJS, switched+" (after F)")
						}
					})
				}
			})
		}
	})

	t.Run("live-region", func(t *testing.T) {
		b := env.newTab(t, true)
		for _, lang := range []string{"en", "ja"} {
			b.open(true, 1, lang)
			b.waitFrame(true, 1, lang)
			for _, step := range []struct {
				control string
				k       int
			}{{"step", 2}, {"step", 3}, {"back", 2}} {
				b.click(step.control)
				b.waitFrame(true, step.k, lang)
				r, err := demo.Replay(gc, true, step.k)
				if err != nil {
					t.Fatal(err)
				}
				live, err := chromedp.Run(b.ctx, chromedp.Evaluate[struct {
					Text   string `json:"text"`
					Live   string `json:"live"`
					Atomic string `json:"atomic"`
				}](`(() => { const a = document.getElementById('announce');
					return {text: a.textContent.replace(/\s+/g, ' ').trim(), live: a.getAttribute('aria-live') || '', atomic: a.getAttribute('aria-atomic') || ''}; })()`))
				if err != nil {
					t.Fatal(err)
				}
				prefix := fmt.Sprintf("%d / %d.", step.k, gc.Frames())
				title := r.Frame().Title.In(lang)
				if !strings.HasPrefix(live.Text, prefix) || !strings.Contains(live.Text, title) {
					t.Errorf("%s, after %s to frame %d: #announce=%q, want it to start with %q and name the frame, %q", lang, step.control, step.k, live.Text, prefix, title)
				}
				if live.Live != "polite" || live.Atomic != "true" {
					t.Errorf("%s, after %s: #announce has aria-live=%q aria-atomic=%q, want polite and true", lang, step.control, live.Live, live.Atomic)
				}
			}
		}
	})

	t.Run("focus-visible", func(t *testing.T) {
		for _, p := range []struct{ name, path string }{
			{"demo", views.FrameURL(gc, true, 3, "en")},
			{"embed", "/embed/gc-pause?fencing=on&step=3&lang=ja"},
			{"index", "/scenarios?lang=en"},
		} {
			t.Run(p.name, func(t *testing.T) {
				b := env.newTab(t, true)
				b.do(chromedp.Navigate(srv.URL + p.path))
				b.checkFocusRing()
			})
		}
	})

	t.Run("reflow", func(t *testing.T) {
		// Each page is loaded on a phone and then seen at 200 % zoom of a
		// 1280x720 screen, as a reader who zooms in does, without a reload.
		b := openTab(t, env, 90*time.Second)
		viewports := []struct {
			name          string
			width, height int64
			mobile        bool
		}{
			{"360px", 360, 740, true},
			{"1280px-at-200%", 640, 360, false}, // 640 CSS px across
		}
		for _, sc := range catalog.Scenarios {
			for _, lang := range []string{"en", "ja"} {
				path := views.FrameURL(sc, sc.Default, sc.Frames(), lang)
				for i, vp := range viewports {
					if vp.mobile {
						b.do(chromedp.EmulateViewport(vp.width, vp.height, chromedp.EmulateMobile))
					} else {
						b.do(chromedp.EmulateViewport(vp.width, vp.height))
					}
					if i == 0 {
						b.do(chromedp.Navigate(srv.URL + path))
					}
					w, err := chromedp.Run(b.ctx, chromedp.Evaluate[struct {
						Scroll int    `json:"scroll"`
						Inner  int    `json:"inner"`
						Past   string `json:"past"` // the element reaching furthest past the right edge
					}](`(() => {
						const inner = window.innerWidth, screen = `+strconv.FormatInt(vp.width, 10)+`;
						let past = '', edge = screen + 0.5;
						for (const el of document.querySelectorAll('body *')) {
							const r = el.getBoundingClientRect();
							if (r.width > 0 && r.right > edge) {
								edge = r.right;
								past = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
									(typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\s+/).join('.') : '') +
									' (right edge at ' + Math.round(r.right) + ' px)';
							}
						}
						return {scroll: document.documentElement.scrollWidth, inner, past};
					})()`))
					if err != nil {
						t.Fatal(err)
					}
					// On a phone a page wider than the screen is laid out
					// wider (innerWidth grows) and shrunk to fit; elsewhere
					// it scrolls. Either way it does not reflow.
					if w.Inner != int(vp.width) || w.Scroll > int(vp.width) {
						t.Errorf("%s %s: innerWidth=%d, scrollWidth=%d, want both %d: the page is wider than the screen; furthest out: %s", vp.name, path, w.Inner, w.Scroll, vp.width, w.Past)
					}
				}
			}
		}
	})

	t.Run("reduced-motion", func(t *testing.T) {
		b := env.newTab(t, true)
		if _, err := chromedp.Call(b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}},
		}); err != nil {
			t.Fatal(err)
		}
		b.open(true, 1, "en")
		b.waitFrame(true, 1, "en")
		if ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`matchMedia('(prefers-reduced-motion: reduce)').matches`)); err != nil || !ok {
			t.Fatalf("prefers-reduced-motion: reduce is not emulated (matches=%v, err=%v)", ok, err)
		}
		// Read the styles while a click's swap is still settling, then at
		// rest, then with the share box and the key help open.
		b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=step]').click()`))
		b.checkNoMotion("during a step's swap")
		b.waitFrame(true, 2, "en")
		b.checkNoMotion("at rest")
		b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=share]').open = true; document.getElementById('help').showModal()`))
		b.checkNoMotion("with the share box and the key help open")
	})

	t.Run("not-colour-alone", func(t *testing.T) {
		// On screen, for the chapter's frames: the accepted, rejected and
		// stale writes in "what this move did".
		b := env.newTab(t, true)
		for _, c := range []struct {
			on    bool
			k     int
			lang  string
			class string
		}{
			{true, 2, "en", "ev-accepted"}, {true, 7, "en", "ev-rejected"}, {false, 7, "en", "ev-stale"},
			{true, 2, "ja", "ev-accepted"}, {true, 7, "ja", "ev-rejected"}, {false, 7, "ja", "ev-stale"},
		} {
			b.open(c.on, c.k, c.lang)
			b.waitFrame(c.on, c.k, c.lang)
			items, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](
				`Array.from(document.querySelectorAll('ul.happened li.`+c.class+`'), li => li.innerText.replace(/\s+/g, ' ').trim())`))
			if err != nil {
				t.Fatal(err)
			}
			if len(items) == 0 {
				t.Errorf("fencing %s frame %d %s: no li.%s in the happened list", demo.OnOff(c.on), c.k, c.lang, c.class)
			}
			for _, text := range items {
				if problem := markProblem(c.class, c.lang, text); problem != "" {
					t.Errorf("fencing %s frame %d %s: li.%s %q: %s", demo.OnOff(c.on), c.k, c.lang, c.class, text, problem)
				}
			}
		}
	})
}

// TestMarksNotColourAlone reads every frame of every scenario, as the server
// sends it, in both switch positions and both languages: each accepted,
// rejected or stale write says so with a symbol and in words, and each write
// mark on the space-time diagram has its glyph.
func TestMarksNotColourAlone(t *testing.T) {
	t.Parallel() // reads every frame's page: beside the other long tests
	seen := map[string]int{}
	for _, p := range everyFramePage(t) {
		path, lang, doc := p.path, p.lang, p.doc
		for _, class := range []string{"ev-accepted", "ev-rejected", "ev-stale"} {
			doc.Find("ul.happened li." + class).Each(func(_ int, li *goquery.Selection) {
				seen[class]++
				text := strings.Join(strings.Fields(li.Text()), " ")
				if problem := markProblem(class, lang, text); problem != "" {
					t.Errorf("%s: li.%s %q: %s", path, class, text, problem)
				}
			})
		}
		for class, glyph := range map[string]string{"write.ok": "✓", "write.rejected": "✗", "write.stale": "!"} {
			doc.Find(`svg[data-testid=timeline] g.mark.` + class).Each(func(_ int, g *goquery.Selection) {
				seen[class]++
				if got := strings.TrimSpace(g.Find("text.glyph").Text()); got != glyph {
					t.Errorf("%s: timeline mark %s has glyph %q, want %q", path, class, got, glyph)
				}
				if strings.TrimSpace(g.Find("text.mark-label").Text()) == "" {
					t.Errorf("%s: timeline mark %s has no label", path, class)
				}
			})
		}
	}
	for _, class := range []string{"ev-accepted", "ev-rejected", "ev-stale", "write.ok", "write.rejected", "write.stale"} {
		if seen[class] == 0 {
			t.Errorf("no frame of any scenario shows a %s mark: the check above checked nothing", class)
		}
	}
	t.Logf("marks checked: %v", seen)
}

// markProblem says what a write's line in "what this move did" lacks, or "".
// Colour tells the three apart on screen; each must also say it in a symbol
// and in words.
func markProblem(class, lang, text string) string {
	words := map[string][2]string{ // class -> {ja, en}
		"ev-accepted": {"受理", "accepted"},
		"ev-rejected": {"拒否", "rejected"},
		"ev-stale":    {"データ破壊", "data destroyed"},
	}[class]
	word := words[1]
	if lang == "ja" {
		word = words[0]
	}
	symbols := map[string]string{"ev-accepted": "✓", "ev-rejected": "✗", "ev-stale": "✓⚠!"}[class]
	var missing []string
	if !strings.ContainsAny(text, symbols) {
		missing = append(missing, "a symbol (one of "+strconv.Quote(symbols)+")")
	}
	if !strings.Contains(text, word) {
		missing = append(missing, "the words "+strconv.Quote(word))
	}
	if len(missing) == 0 {
		return ""
	}
	return "lacks " + strings.Join(missing, " and ")
}

// openTab is browserEnv.newTab with a budget of its own, for a subtest that
// visits many pages in one tab.
func openTab(t *testing.T, env *browserEnv, budget time.Duration) *tab {
	t.Helper()
	ctx, cancel := context.WithTimeout(env.browser, budget)
	t.Cleanup(cancel)
	ctx, cancelTab := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancelTab)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	return &tab{t: t, ctx: ctx, env: env, js: true}
}

// in is the same tab, reporting to a subtest.
func (b *tab) in(t *testing.T) *tab {
	c := *b
	c.t = t
	return &c
}

// axeViolation is one of axe's results, cut down to what a failure shows.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	URL    string `json:"helpUrl"`
	Nodes  []struct {
		Target  string `json:"target"`
		HTML    string `json:"html"`
		Summary string `json:"summary"`
	} `json:"nodes"`
}

// checkAxe runs axe on the page in the tab, with every <details> opened so
// that their contents are checked too, and fails on any violation.
func (b *tab) checkAxe(axeJS []byte, where string) {
	b.t.Helper()
	b.do(chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('details').forEach(d => d.open = true)`))
	if ok, _ := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`typeof axe === 'object'`)); !ok {
		b.do(chromedp.Evaluate[chromedp.Void](string(axeJS)))
	}
	raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]byte](`axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({
		id: v.id, impact: v.impact || '', help: v.help, helpUrl: v.helpUrl,
		nodes: v.nodes.map(n => ({target: n.target.map(String).join(' >>> '), html: n.html, summary: n.failureSummary || ''})),
	})))`, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("running axe on %s: %v", where, err)
	}
	var vs []axeViolation
	if err := json.Unmarshal(raw, &vs); err != nil {
		b.t.Fatalf("axe's result on %s: %v", where, err)
	}
	for _, v := range vs {
		var report strings.Builder
		for _, n := range v.Nodes {
			fmt.Fprintf(&report, "\n    at %s\n      %s\n      %s", n.Target, n.HTML, strings.ReplaceAll(n.Summary, "\n", "\n      "))
		}
		b.t.Errorf("axe on %s: %s (%s): %s\n    %s%s", where, v.ID, v.Impact, v.Help, v.URL, report.String())
	}
}

// waitSettled waits until the tab's address is path and htmx has finished
// swapping, whatever the scenario.
func (b *tab) waitSettled(path string) {
	b.t.Helper()
	b.waitJS("the page to settle at "+path, `location.href === `+strconv.Quote(b.env.base+path)+` &&
		!document.querySelector('.htmx-request, .htmx-added, .htmx-settling, .htmx-swapping')`)
}

// focusStop is what one press of Tab focused and how it looks.
type focusStop struct {
	Index    int    `json:"i"` // in the page's focusable elements; -1: left the page
	What     string `json:"what"`
	Visible  bool   `json:"visible"`
	Focused  string `json:"focused"`
	Resting  string `json:"resting"`
	Matching bool   `json:"matching"` // :focus-visible matches
}

// checkFocusRing presses Tab through the whole page and checks that each
// element it reaches looks different when focused: an outline or a shadow
// that it does not have at rest.
func (b *tab) checkFocusRing() {
	b.t.Helper()
	if _, err := chromedp.Call(b.ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		b.t.Fatal(err)
	}
	// The styles at rest, read before anything has the focus; the share
	// box is opened so that its fields are on the way.
	count, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`(() => {
		document.querySelectorAll('details').forEach(d => d.open = true);
		if (document.activeElement) document.activeElement.blur();
		const look = el => { const s = getComputedStyle(el);
			return [s.outlineStyle, s.outlineWidth, s.outlineColor, s.boxShadow, s.borderColor, s.backgroundColor].join(' | '); };
		window.__look = look;
		window.__focusables = Array.from(document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex], iframe'));
		window.__resting = window.__focusables.map(look);
		return window.__focusables.length;
	})()`))
	if err != nil {
		b.t.Fatal(err)
	}
	var stops []focusStop
	seen := map[int]bool{}
	for range count + 5 {
		b.do(chromedp.KeyEvent("\t"))
		s, err := chromedp.Run(b.ctx, chromedp.Evaluate[focusStop](`(() => {
			const el = document.activeElement;
			if (!el || el === document.body) return {i: -1};
			const i = window.__focusables.indexOf(el);
			const s = getComputedStyle(el);
			const focused = window.__look(el);
			const resting = i >= 0 ? window.__resting[i] : '';
			const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2;
			const shadow = s.boxShadow !== 'none';
			return {i, what: el.outerHTML.slice(0, 120), focused, resting,
				visible: focused !== resting && (outline || shadow), matching: el.matches(':focus-visible')};
		})()`))
		if err != nil {
			b.t.Fatal(err)
		}
		if s.Index == -1 || seen[s.Index] {
			break
		}
		seen[s.Index] = true
		stops = append(stops, s)
	}
	if len(stops) < 3 {
		b.t.Fatalf("Tab reached %d elements: %+v", len(stops), stops)
	}
	for _, s := range stops {
		if s.Index < 0 {
			b.t.Errorf("Tab reached an element the test did not list: %s", s.What)
			continue
		}
		if !s.Visible {
			b.t.Errorf("no visible focus on %s\n    focused: %s\n    at rest: %s\n    :focus-visible matches: %v", s.What, s.Focused, s.Resting, s.Matching)
		}
	}
	if !b.t.Failed() {
		b.t.Logf("Tab reached %d elements, each with a visible focus", len(stops))
	}
}

// checkNoMotion fails on any element, or ::before and ::after of one, that
// animates or transitions, and on any animation running in the document.
func (b *tab) checkNoMotion(when string) {
	b.t.Helper()
	moving, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`(() => {
		const out = [];
		const long = list => list.split(',').some(d => parseFloat(d) > 0);
		for (const el of document.querySelectorAll('*')) {
			for (const pseudo of [null, '::before', '::after']) {
				const s = getComputedStyle(el, pseudo);
				const what = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (pseudo || '');
				if (long(s.transitionDuration)) out.push(what + ': transition ' + s.transitionProperty + ' ' + s.transitionDuration);
				if (s.animationName !== 'none' && long(s.animationDuration)) out.push(what + ': animation ' + s.animationName + ' ' + s.animationDuration);
			}
		}
		for (const a of document.getAnimations()) {
			if (a.playState === 'running') out.push('running animation on ' + (a.effect && a.effect.target ? a.effect.target.tagName : '?'));
		}
		return out;
	})()`))
	if err != nil {
		b.t.Fatal(err)
	}
	for _, m := range moving {
		b.t.Errorf("with prefers-reduced-motion: reduce, %s: %s", when, m)
	}
}

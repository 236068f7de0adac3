package web

// The presenter's keys (static/app.js), pressed as a lecturer presses them
// at a projector: real key events from DevTools, with the focus on the page
// and not on a button, each checked against the frame the model computes.
// Then presenter mode (?present=1): the longest frames must fit a 1280x720
// and a 1920x1080 screen without scrolling.
//
//	go test -run Keys -v .      # needs Chromium, as the browser test does

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/internal/testkit/screen"
	"github.com/distlock/fencing-demo/views"
)

const keysBudget = 3 * time.Minute // the whole test, browser start included

func TestKeys(t *testing.T) {
	catalog := testkit.Catalog(t)
	gc, ok := catalog.Get("gc-pause")
	if !ok {
		t.Fatal("scenario gc-pause is missing from scenarios.yaml")
	}
	srv := httptest.NewServer(newTestServer(t, DefaultConfig()))
	t.Cleanup(srv.Close)
	env := &browserEnv{browser: testkit.Chromium(t, keysBudget), base: srv.URL, sc: gc}

	t.Run("presenter-keys", func(t *testing.T) {
		const lang = "en"
		b := env.newTab(t, true)
		// A headless tab is never the focused window; without this the
		// page never sees itself focused, as a projector's browser is.
		if _, err := chromedp.Call(b.ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
			t.Fatal(err)
		}
		b.open(true, 1, lang)
		b.waitFrame(true, 1, lang)

		on := true
		for _, p := range []struct {
			name string
			key  string
			k    int
		}{
			{"ArrowRight", kb.ArrowRight, 2},
			{"Space", " ", 3},
			{"PageDown", kb.PageDown, 4},
			{"PageUp", kb.PageUp, 3},
			{"ArrowLeft", kb.ArrowLeft, 2},
			{"End", kb.End, 7},
			{"Home", kb.Home, 1},
			{"End again", kb.End, 7},
			{"F", "f", 7}, // the switch: same frame, fencing off
			{"R", "r", 1},
		} {
			if p.key == "f" {
				on = !on
			}
			// One subtest a key, in the same tab, so a failure names the key.
			if !t.Run(p.name, func(t *testing.T) {
				b := b.in(t)
				b.bodyFocus()
				b.do(chromedp.KeyEvent(p.key))
				s := b.waitFrame(on, p.k, lang)
				if p.key == "f" && s.Pressed != "false" {
					t.Errorf("after F: aria-pressed=%q, want false", s.Pressed)
				}
			}) {
				t.FailNow()
			}
		}

		// ? opens the key help, Escape closes it, and while it is open the
		// demo's keys do nothing.
		b.bodyFocus()
		b.do(chromedp.KeyEvent("?"))
		b.waitJS("the help dialog to open", `document.querySelector('[data-testid=help]').open`)
		b.do(chromedp.KeyEvent(kb.ArrowRight))
		b.do(chromedp.KeyEvent(kb.Escape))
		b.waitJS("the help dialog to close", `!document.querySelector('[data-testid=help]').open`)
		b.waitFrame(on, 1, lang)

		// P plays at the fastest speed: the frame moves on by itself; P
		// again stops it where it is.
		fastest, err := chromedp.Run(b.ctx, chromedp.Evaluate[struct {
			Label string `json:"label"`
			MS    int    `json:"ms"`
		}](`(() => {
			const sel = document.querySelector('[data-testid=speed]');
			const ms = Math.min(...Array.from(sel.options, o => Number(o.value)));
			sel.value = String(ms);
			sel.dispatchEvent(new Event('change', {bubbles: true}));
			return {label: sel.selectedOptions[0].textContent, ms};
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		b.bodyFocus()
		b.do(chromedp.KeyEvent("p"))
		b.waitJS("autoplay to start", `document.querySelector('[data-testid=play]').getAttribute('aria-pressed') === 'true'`)
		start := time.Now()
		s := b.waitFor("autoplay to step on its own", func(s screen.Screen) bool { return s.Index == fmt.Sprintf("2 / %d", gc.Frames()) })
		t.Logf("autoplay at %s (%d ms a step) reached frame 2 after %v", fastest.Label, fastest.MS, time.Since(start).Round(10*time.Millisecond))
		b.waitFrame(on, 2, lang)
		b.bodyFocus()
		b.do(chromedp.KeyEvent("p"))
		b.waitJS("autoplay to stop", `document.querySelector('[data-testid=play]').getAttribute('aria-pressed') === 'false'`)
		// A step autoplay started just before P may still be on its way.
		stopped := b.waitFor("the last step to settle", func(s screen.Screen) bool { return s.Busy == 0 }).Index
		b.do(chromedp.Sleep(time.Duration(fastest.MS) * time.Millisecond * 3 / 2)) // longer than a step at that speed
		if s = b.screen(); s.Index != stopped {
			t.Errorf("after P stopped autoplay at %q, the frame moved on to %q", stopped, s.Index)
		}
		k := 0
		if _, err := fmt.Sscanf(stopped, "%d / ", &k); err != nil {
			t.Fatalf("step-index=%q", stopped)
		}
		b.waitFrame(on, k, lang)
	})

	t.Run("typing-in-share-box", func(t *testing.T) {
		const lang = "en"
		b := env.newTab(t, true)
		if _, err := chromedp.Call(b.ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
			t.Fatal(err)
		}
		b.open(true, 3, lang)
		b.waitFrame(true, 3, lang)
		b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=share]').open = true`))
		for _, field := range []string{"share-link", "embed-code"} {
			b.do(chromedp.Focus(chromedp.CSS(`[data-testid="` + field + `"]`)))
			b.do(chromedp.KeyEvent(kb.ArrowRight + kb.ArrowLeft + " " + kb.PageDown + kb.PageUp + kb.Home + kb.End + "fFrRpP?"))
			// A request a key started would be on its way by now, and the
			// wait below would see its frame, not frame 3.
			b.do(chromedp.Sleep(300 * time.Millisecond))
			b.waitFrame(true, 3, lang)
			state, err := chromedp.Run(b.ctx, chromedp.Evaluate[struct {
				Help bool   `json:"help"`
				Play string `json:"play"`
			}](`({help: document.getElementById('help').open, play: document.getElementById('play').getAttribute('aria-pressed')})`))
			if err != nil {
				t.Fatal(err)
			}
			if state.Help || state.Play != "false" {
				t.Errorf("keys typed in %s: help open=%v, play aria-pressed=%q; want neither", field, state.Help, state.Play)
			}
		}
	})

	t.Run("presenter-mode-fits", func(t *testing.T) {
		b := env.newTab(t, true)
		for _, size := range [][2]int64{{1280, 720}, {1920, 1080}} {
			b.do(chromedp.EmulateViewport(size[0], size[1]))
			for _, id := range []string{"gc-pause", "redlock-quorum"} {
				sc, ok := catalog.Get(id)
				if !ok {
					t.Fatalf("scenario %s is missing from scenarios.yaml", id)
				}
				for _, lang := range []string{"en", "ja"} {
					for _, on := range []bool{sc.Default, !sc.Default} {
						path := views.Place{Place: demo.Place{Sc: sc, On: on, Step: sc.Frames()}, Lang: lang, Present: true}.URL()
						b.do(chromedp.Navigate(srv.URL + path))
						m, err := chromedp.Run(b.ctx, chromedp.Evaluate[struct {
							ScrollW int  `json:"scrollW"`
							ScrollH int  `json:"scrollH"`
							InnerW  int  `json:"innerW"`
							InnerH  int  `json:"innerH"`
							Present bool `json:"present"`
						}](`({scrollW: document.documentElement.scrollWidth, scrollH: document.documentElement.scrollHeight,
							innerW: innerWidth, innerH: innerHeight, present: document.body.classList.contains('present')})`))
						if err != nil {
							t.Fatal(err)
						}
						if !m.Present {
							t.Fatalf("%s: body is not in presenter mode", path)
						}
						if m.InnerW != int(size[0]) || m.InnerH != int(size[1]) {
							t.Fatalf("%s: viewport %dx%d, want %dx%d", path, m.InnerW, m.InnerH, size[0], size[1])
						}
						if m.ScrollW > m.InnerW || m.ScrollH > m.InnerH {
							t.Errorf("%s at %dx%d: the page is %dx%d and scrolls; presenter mode must fit the screen", path, size[0], size[1], m.ScrollW, m.ScrollH)
						}
					}
				}
			}
		}
	})
}

// bodyFocus takes the focus off any button or field, as a lecturer's click on
// the page's background does, so a key goes to the page itself.
func (b *tab) bodyFocus() {
	b.t.Helper()
	ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`(() => {
		if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
		return document.activeElement === document.body;
	})()`))
	if err != nil {
		b.t.Fatal(err)
	}
	if !ok {
		b.t.Fatal("could not put the focus on the body")
	}
}

// waitJS waits until a JavaScript expression is true.
func (b *tab) waitJS(what, expr string) {
	b.t.Helper()
	deadline := time.Now().Add(waitBudget)
	for {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("waiting for %s: %s is still false (err: %v)", what, expr, err)
		}
		b.do(chromedp.Sleep(20 * time.Millisecond))
	}
}

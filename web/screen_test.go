package web

// The screen test: what a lecturer, a student and a reader see, measured in a
// real Chromium at the sizes they use (1280x720, 1920x1080 presenter, a 360 px
// phone, a 1000 px iframe). Each subtest is one fault of issue 13: a double
// click is one step, no label of the diagram overlaps another or is cut, a
// frame's point fits one screen, and so on.
//
//	go test -run Screen -v .     # needs Chromium

import (
	"fmt"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/internal/testkit/screen"
	"github.com/distlock/fencing-demo/views"
)

const screenBudget = 6 * time.Minute

func TestScreen(t *testing.T) {
	catalog := testkit.Catalog(t)
	gc, ok := catalog.Get("gc-pause")
	if !ok {
		t.Fatal("scenario gc-pause is missing from scenarios.yaml")
	}
	posts := &postLog{}
	s := newTestServer(t, DefaultConfig())
	srv := httptest.NewServer(posts.wrap(s))
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.Close) // before srv.Close, which waits for open streams
	env := &browserEnv{browser: testkit.Chromium(t, screenBudget), base: srv.URL, sc: gc, posts: posts}

	// A double click on Step, with a real mouse: two presses at one spot,
	// the second counted as the pair's second click (detail 2), as a
	// person makes them about 90 ms apart. The second comes after the first
	// answer has been swapped in (the worst case: the new Step button is
	// under the pointer). One step, not two.
	t.Run("double-click/pointer", func(t *testing.T) {
		const on, lang, k = true, "en", 1
		b := env.newTab(t, true)
		b.open(on, k, lang)
		b.waitFrame(on, k, lang)
		x, y := b.center("step")
		b.mouseClick(x, y, 1)
		b.waitFrame(on, k+1, lang)
		mark := posts.len()
		b.mouseClick(x, y, 2)
		// The click has been handled when dispatchMouseEvent returns; htmx
		// would have sent its request by now.
		s := b.waitFor("the second click to settle", func(s screen.Screen) bool { return s.Busy == 0 })
		if got, want := s.Index, fmt.Sprintf("%d / %d", k+1, gc.Frames()); got != want {
			t.Errorf("after a double click on frame %d the screen shows %q, want %q", k, got, want)
		}
		if n := len(posts.since(mark)); n != 0 {
			t.Errorf("the second click of a double click sent %d request(s): %v", n, posts.since(mark))
		}
		// A single click later is a step again.
		b.mouseClick(x, y, 1)
		b.waitFrame(on, k+2, lang)
	})

	// Without JavaScript a double click posts the form twice, both times
	// from the frame it was made on; the server moves the run once.
	t.Run("double-click/no-javascript", func(t *testing.T) {
		const on, lang, k = true, "en", 2
		b := env.newTab(t, false)
		if _, err := chromedp.Call(b.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		b.open(on, k, lang)
		mark := posts.len()
		x, y := b.center("step")
		b.mouseClick(x, y, 1)
		b.mouseClick(x, y, 2)
		want := fmt.Sprintf("%d / %d", k+1, gc.Frames())
		s := testkit.WaitFor(t, b.ctx, waitBudget, "frame "+want, screen.ScreenJS, func(s screen.Screen) bool { return s.Index == want })
		b.checkFrame(s, on, k+1, lang)
		for _, p := range posts.since(mark) {
			if p.Get("from") != strconv.Itoa(k) {
				t.Errorf("a click of the double click was posted from frame %q, want %d", p.Get("from"), k)
			}
		}
	})

	// The diagram's labels, measured as drawn: in every scenario's last
	// frame, both switch positions, both languages, at a phone's, a
	// projector's and a large screen's width, no label overlaps another and
	// none is cut by the edge of its drawing.
	t.Run("diagram-labels", func(t *testing.T) {
		b := env.newTabFor(t, true, layoutBudget) // 360 pages
		for _, size := range [][2]int64{{360, 740}, {1280, 720}, {1920, 1080}} {
			b.do(chromedp.EmulateViewport(size[0], size[1]))
			for _, sc := range catalog.Scenarios {
				for _, on := range []bool{false, true} {
					for _, lang := range []string{"en", "ja"} {
						path := views.FrameURL(sc, on, sc.Frames(), lang)
						b.do(chromedp.Navigate(srv.URL + path))
						faults := testkit.WaitFor(t, b.ctx, waitBudget, "the diagram of "+path, labelFaultsJS, func(f []string) bool { return f != nil })
						for _, f := range faults {
							t.Errorf("%dx%d %s: %s", size[0], size[1], path, f)
						}
					}
				}
			}
		}
	})

	// At 1280x720, in the normal view, the frame's point is on the first
	// screen: the verdict, the narration's last move, the lesson at the end
	// and the whole diagram, with no scrolling.
	t.Run("fits-1280x720", func(t *testing.T) {
		b := env.newTab(t, true)
		b.do(chromedp.EmulateViewport(1280, 720))
		for _, lang := range []string{"en", "ja"} {
			for _, on := range []bool{false, true} {
				for _, k := range []int{1, gc.Frames()} {
					path := views.FrameURL(gc, on, k, lang)
					b.do(chromedp.Navigate(srv.URL + path))
					for _, f := range testkit.WaitFor(t, b.ctx, waitBudget, "the frame's point on "+path, belowFoldJS(720), func(f []string) bool { return f != nil }) {
						t.Errorf("1280x720 %s: %s", path, f)
					}
				}
			}
		}
	})

	// Presenter mode fills the projector's screen: nothing below the fold,
	// no empty bottom quarter, and type at least as large as the normal
	// page's at 1280x720.
	t.Run("presenter-fills-screen", func(t *testing.T) {
		b := env.newTab(t, true)
		b.do(chromedp.EmulateViewport(1280, 720))
		b.do(chromedp.Navigate(srv.URL + views.FrameURL(gc, false, 1, "en")))
		normal := testkit.WaitFor(t, b.ctx, waitBudget, "the normal page's type", `parseFloat(getComputedStyle(document.body).fontSize)`, func(px float64) bool { return px > 0 })
		for _, size := range [][2]int{{1920, 1080}, {1280, 720}} {
			b.do(chromedp.EmulateViewport(int64(size[0]), int64(size[1])))
			for _, on := range []bool{false, true} {
				for _, k := range []int{1, 4, gc.Frames()} {
					path := views.FrameURL(gc, on, k, "en") + "&present=1"
					b.do(chromedp.Navigate(srv.URL + path))
					got := testkit.WaitFor(t, b.ctx, waitBudget, "presenter mode at "+path, presenterJS, func(p presenterRead) bool { return p.Ready })
					where := fmt.Sprintf("%dx%d %s", size[0], size[1], path)
					if got.Scroll > size[1] {
						t.Errorf("%s: the page is %d px high, more than the screen's %d", where, got.Scroll, size[1])
					}
					if got.Bottom < 0.8*float64(size[1]) {
						t.Errorf("%s: the content ends at %.0f px, leaving the bottom %.0f%% of the screen empty", where, got.Bottom, 100-100*got.Bottom/float64(size[1]))
					}
					if size[0] == 1920 && got.Font < normal {
						t.Errorf("%s: type is %.1f px, smaller than the normal page's %.1f px at 1280x720", where, got.Font, normal)
					}
				}
			}
		}
	})

	// On a 360 px phone: the verdict on the first screen, the diagram's
	// type drawn at a readable size (12 px or more) with the moment shown
	// in view, and the lane names kept at the left edge beside it.
	t.Run("phone-360", func(t *testing.T) {
		b := env.newTab(t, true)
		b.do(chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile))
		for _, lang := range []string{"en", "ja"} {
			for _, k := range []int{1, 4, gc.Frames()} {
				path := views.FrameURL(gc, false, k, lang)
				b.do(chromedp.Navigate(srv.URL + path))
				for _, f := range testkit.WaitFor(t, b.ctx, waitBudget, "the phone's view of "+path, phoneJS, func(f []string) bool { return f != nil }) {
					t.Errorf("360x740 %s: %s", path, f)
				}
			}
		}
	})

	// Frame 1 shows that nothing is held, not an expiry at t=0; the
	// resource's token check is shown where the scenario is about it, and
	// left out where it is not (Redlock's quorum has no fencing to show).
	t.Run("nothing-held-and-fencing-shown-where-it-matters", func(t *testing.T) {
		b := env.newTab(t, true)
		type read struct {
			Expiry   string `json:"expiry"`
			Badge    string `json:"badge"`
			MaxToken bool   `json:"maxToken"`
		}
		const js = `(() => {
  if (!document.querySelector('#demo')) return null;
  const e = document.querySelector('[data-testid=lease-expiry]'), badge = document.querySelector('#h-res .badge');
  return {expiry: e ? e.innerText.trim() : '', badge: badge ? badge.innerText.trim() : '', maxToken: !!document.querySelector('[data-testid=max-token]')};
})()`
		for _, c := range []struct {
			id, lang string
			on       bool
			step     int
			want     read
		}{
			{"gc-pause", "en", true, 1, read{Expiry: "none (nothing held)", Badge: "🛡 fencing on", MaxToken: true}},
			{"gc-pause", "ja", false, 1, read{Expiry: "なし (誰も保持していない)", Badge: "⚠ フェンシング無", MaxToken: true}},
			{"redlock-quorum", "en", false, 0, read{}},
			{"redlock-quorum", "en", true, 0, read{}},
			{"watchdog", "en", false, 0, read{}},
		} {
			sc, _ := catalog.Get(c.id)
			step := c.step
			if step == 0 {
				step = sc.Frames()
			}
			path := views.FrameURL(sc, c.on, step, c.lang)
			b.do(chromedp.Navigate(srv.URL + path))
			got := testkit.WaitFor(t, b.ctx, waitBudget, path, js, func(r *read) bool { return r != nil })
			if *got != c.want {
				t.Errorf("%s: lease expiry %q, badge %q, maxToken shown %v; want %+v", path, got.Expiry, got.Badge, got.MaxToken, c.want)
			}
		}
	})

	// In a 1000 px iframe (the embed at 1000 px: its media queries see the
	// frame's width): the lease row on one line each side, the embed code
	// whole, the disabled Step button in full contrast; and the index's
	// outcomes read "switch: state → verdict".
	t.Run("iframe-1000", func(t *testing.T) {
		b := env.newTab(t, true)
		b.do(chromedp.EmulateViewport(1000, 720))
		path := "/embed/gc-pause?fencing=off&step=7&lang=en"
		b.do(chromedp.Navigate(srv.URL + path))
		for _, f := range testkit.WaitFor(t, b.ctx, waitBudget, "the embed at 1000 px", embedFaultsJS, func(f []string) bool { return f != nil }) {
			t.Errorf("1000 px %s: %s", path, f)
		}
		for _, lang := range []string{"en", "ja"} {
			b.do(chromedp.Navigate(srv.URL + views.IndexURL(lang)))
			for _, f := range testkit.WaitFor(t, b.ctx, waitBudget, "the index's outcomes", outcomeFaultsJS, func(f []string) bool { return f != nil }) {
				t.Errorf("1000 px index (%s): %s", lang, f)
			}
		}
	})

	// The Redis nodes' table at 1280x720, opened from the strip: a TTL in
	// every row with a key or a dash without, each key's whole value there
	// to open, each client's belief on one line, and no panel left mostly
	// empty.
	t.Run("redis-nodes", func(t *testing.T) {
		b := env.newTab(t, true)
		b.do(chromedp.EmulateViewport(1280, 720))
		for _, id := range []string{"redlock-quorum", "redis-failover", "redlock-clock-jump", "watchdog"} {
			sc, _ := catalog.Get(id)
			for _, on := range []bool{false, true} {
				path := views.FrameURL(sc, on, sc.Frames(), "en")
				b.do(chromedp.Navigate(srv.URL + path))
				for _, f := range testkit.WaitFor(t, b.ctx, waitBudget, "the nodes of "+path, nodesFaultsJS, func(f []string) bool { return f != nil }) {
					t.Errorf("1280x720 %s: %s", path, f)
				}
			}
		}
	})

	// A follower's page, live: no "reload" offered, and the lecturer's
	// switch shown as a label, not drawn like the button it is on the
	// lecturer's page.
	t.Run("follow-page", func(t *testing.T) {
		lect := env.newTab(t, true)
		lect.open(true, 1, "en")
		lect.waitFrame(true, 1, "en")
		lect.click("step")
		lect.waitFrame(true, 2, "en")
		link, err := chromedp.Run(lect.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="follow-link"]').href`))
		if err != nil {
			t.Fatal(err)
		}
		const styleJS = `(() => { const p = document.querySelector('%s .pill'), s = getComputedStyle(p); return [s.borderTopStyle, s.borderTopWidth, s.borderRadius].join(' '); })()`
		button, err := chromedp.Run(lect.ctx, chromedp.Evaluate[string](fmt.Sprintf(styleJS, `[data-testid="fencing"]`)))
		if err != nil {
			t.Fatal(err)
		}
		fol := env.newTab(t, true)
		fol.do(chromedp.Navigate(link + "?lang=en"))
		testkit.WaitFor(t, fol.ctx, waitBudget, "the follower's page to be live", `document.getElementById('follow').dataset.state || ''`, func(s string) bool { return s == "live" })
		reload, err := chromedp.Run(fol.ctx, chromedp.Evaluate[bool](`document.querySelector('[data-testid=reload]').checkVisibility()`))
		if err != nil {
			t.Fatal(err)
		}
		if reload {
			t.Error(`the live follower's page offers "reload for the latest step"`)
		}
		badge, err := chromedp.Run(fol.ctx, chromedp.Evaluate[string](fmt.Sprintf(styleJS, `[data-testid="follow-switch"]`)))
		if err != nil {
			t.Fatal(err)
		}
		if badge == button {
			t.Errorf("the follower's read-only switch is drawn like the lecturer's button (%s)", badge)
		}
	})

	// A step shows what its move changed with motion: at frame 2 of
	// gc-pause, A's lease bar grows, its write travels to row-42 and its
	// mark appears, and the holder lights up. Nothing moves on a first load
	// (as in the static export, which has no script), nor under
	// prefers-reduced-motion.
	t.Run("motion", func(t *testing.T) {
		const movingJS = `document.getAnimations().map(a => { const e = a.effect && a.effect.target; return e ? (e.getAttribute('class') || e.tagName) + '/' + a.animationName : ''; }).sort()`
		for _, reduce := range []bool{false, true} {
			b := env.newTab(t, true)
			if reduce {
				if _, err := chromedp.Call(b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}}); err != nil {
					t.Fatal(err)
				}
			}
			b.open(true, 1, "en")
			b.waitFrame(true, 1, "en")
			if got, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](movingJS)); err != nil || len(got) != 0 {
				t.Errorf("reduce=%v: on a first load these move: %q (%v)", reduce, got, err)
			}
			b.click("step")
			if reduce {
				b.waitFrame(true, 2, "en")
				if got, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](movingJS)); err != nil || len(got) != 0 {
					t.Errorf("under prefers-reduced-motion a step moves %q (%v)", got, err)
				}
				continue
			}
			got := testkit.WaitFor(t, b.ctx, waitBudget, "the step's motion", movingJS, func(a []string) bool { return len(a) > 0 })
			for _, want := range []string{"lease c0 fresh/grow", "write ok fresh/travel", "mark write ok fresh/arrive", "changed/changed"} {
				found := false
				for _, a := range got {
					found = found || a == want
				}
				if !found {
					t.Errorf("after a step to frame 2, %q does not move; moving: %q", want, got)
				}
			}
			// Frames 3 and 4: A's lease, held from before, drains from the
			// old now to the new, then to its expiry at t=10, and nothing
			// else of A's bar grows again.
			for k := 3; k <= 4; k++ {
				b.click("step")
				b.waitFrame(true, k, "en")
				got = testkit.WaitFor(t, b.ctx, waitBudget, "the lease draining", movingJS, func(a []string) bool { return len(a) > 0 })
				drains := 0
				for _, a := range got {
					switch a {
					case "planned drained/drain":
						drains++
					case "lease c0 fresh/grow":
						t.Errorf("frame %d: A's lease, held since frame 2, grows again", k)
					}
				}
				if drains != 1 {
					t.Errorf("after a step to frame %d, %d lease(s) drain, want A's; moving: %q", k, drains, got)
				}
			}
		}
	})
}

// center is the middle of the element with this data-testid, in CSS pixels
// of the viewport.
func (b *tab) center(testid string) (float64, float64) {
	b.t.Helper()
	p, err := chromedp.Run(b.ctx, chromedp.Evaluate[[2]float64](`(() => {
		const e = document.querySelector('[data-testid="`+testid+`"]');
		e.scrollIntoView({block: 'center'});
		const r = e.getBoundingClientRect();
		return [r.x + r.width / 2, r.y + r.height / 2];
	})()`))
	if err != nil {
		b.t.Fatalf("finding %s: %v", testid, err)
	}
	return p[0], p[1]
}

// mouseClick presses and releases the left button at x, y; count is the
// click's place in a series (2 for a double click's second).
func (b *tab) mouseClick(x, y float64, count int64) {
	b.t.Helper()
	for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
		if _, err := chromedp.Call(b.ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{
			Type: typ, X: x, Y: y, Button: input.MouseButtonLeft, Buttons: 1, ClickCount: count,
		}); err != nil {
			b.t.Fatalf("mouse %s at %.0f,%.0f: %v", typ, x, y, err)
		}
	}
}

// labelFaultsJS lists, for the page's space-time diagram, every pair of
// labels whose boxes overlap by more than a sliver and every label that
// sticks out of its drawing; null until the diagram is there. The lane
// names the phone holds at the left edge are a copy, checked only for
// being cut.
const labelFaultsJS = `(() => {
  const svg = document.querySelector('svg[data-testid=timeline]');
  if (!svg) return null;
  const faults = [];
  const name = e => JSON.stringify(e.textContent.trim()) + '.' + e.getAttribute('class');
  const inside = (r, o) => r.left >= o.left - 0.5 && r.right <= o.right + 0.5 && r.top >= o.top - 0.5 && r.bottom <= o.bottom + 0.5;
  const check = (root, pairs) => {
    const frame = root.getBoundingClientRect();
    const texts = [...root.querySelectorAll('text')].filter(e => e.textContent.trim() !== '');
    const boxes = texts.map(e => e.getBoundingClientRect());
    texts.forEach((e, i) => {
      if (!inside(boxes[i], frame)) faults.push(name(e) + ' is cut: ' + JSON.stringify(boxes[i]) + ' outside ' + JSON.stringify(frame));
      if (!pairs) return;
      for (let j = i + 1; j < texts.length; j++) {
        const a = boxes[i], c = boxes[j];
        const w = Math.min(a.right, c.right) - Math.max(a.left, c.left);
        const h = Math.min(a.bottom, c.bottom) - Math.max(a.top, c.top);
        if (w > 1 && h > 1) faults.push(name(e) + ' overlaps ' + name(texts[j]) + ' by ' + Math.round(w * h) + ' px²');
      }
    });
  };
  check(svg, true);
  const lanes = document.querySelector('svg.tl-lanes');
  if (lanes && lanes.checkVisibility()) check(lanes, false);
  return faults;
})()`

// belowFoldJS lists the parts of a frame's point that end below the first
// screen of height px (or are missing); null until the page has its demo.
func belowFoldJS(height int) string {
	return `(() => {
  if (!document.querySelector('#demo')) return null;
  window.scrollTo(0, 0);
  const parts = {
    'the verdict': document.querySelector('[data-testid=verdict] p'),
    "the narration's last move": document.querySelector('[data-testid=narration] .happened li:last-child') || document.querySelector('[data-testid=narration] p'),
    'the diagram': document.querySelector('svg[data-testid=timeline]'),
  };
  if (document.querySelector('#demo').dataset.last === 'true') parts['the lesson'] = document.querySelector('[data-testid=lesson]');
  const out = [];
  for (const [what, e] of Object.entries(parts)) {
    if (!e) { out.push(what + ' is missing'); continue; }
    const r = e.getBoundingClientRect();
    if (r.bottom > ` + strconv.Itoa(height) + ` + 0.5) out.push(what + ' ends at ' + Math.round(r.bottom) + ' px, below the first screen');
  }
  return out;
})()`
}

type presenterRead struct {
	Ready  bool    `json:"ready"`
	Scroll int     `json:"scroll"`
	Bottom float64 `json:"bottom"`
	Font   float64 `json:"font"`
}

// presenterJS reads how much of the screen presenter mode uses: the page's
// height, the bottom of the lowest thing drawn (for the diagram, its
// drawing, not its box) and the type's size.
const presenterJS = `(() => {
  const svg = document.querySelector('svg[data-testid=timeline]');
  if (!svg || !document.body.classList.contains('present')) return {ready: false};
  const r = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal;
  const scale = Math.min(r.width / vb.width, r.height / vb.height);
  let bottom = r.top + (r.height + vb.height * scale) / 2;
  for (const sel of ['[data-testid=narration]', '[data-testid=lesson]', '[data-testid=verdict]']) {
    const e = document.querySelector(sel);
    if (e) bottom = Math.max(bottom, e.getBoundingClientRect().bottom);
  }
  return {ready: true, scroll: document.documentElement.scrollHeight, bottom, font: parseFloat(getComputedStyle(document.body).fontSize)};
})()`

// phoneJS lists what does not read on a phone; null until the page has
// loaded its script (which scrolls the diagram to the moment shown).
const phoneJS = `(() => {
  if (!window.htmx || !document.querySelector('#demo')) return null;
  window.scrollTo(0, 0);
  const out = [];
  const v = document.querySelector('[data-testid=verdict]').getBoundingClientRect();
  if (v.bottom > innerHeight) out.push('the verdict ends at ' + Math.round(v.bottom) + ' px, below the first screen');
  if (document.documentElement.scrollWidth > innerWidth) out.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' px');
  const svg = document.querySelector('svg[data-testid=timeline]');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  for (const e of svg.querySelectorAll('text')) {
    const px = parseFloat(getComputedStyle(e).fontSize) * scale;
    if (px < 12) { out.push('diagram label ' + JSON.stringify(e.textContent) + ' is drawn at ' + px.toFixed(1) + ' px'); break; }
  }
  window.scrollTo(0, scrollY + svg.getBoundingClientRect().top - 50);
  const box = svg.parentElement.getBoundingClientRect();
  const now = svg.querySelector('line.now').getBoundingClientRect();
  if (now.left < box.left || now.right > box.right) out.push('the now line is scrolled out of view');
  const lanes = [...document.querySelectorAll('.timeline text.lane-label')].filter(e => e.checkVisibility());
  const shown = lanes.filter(e => { const r = e.getBoundingClientRect(); return r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === e; });
  if (shown.length < svg.querySelectorAll('text.lane-label').length) out.push('only ' + shown.length + ' lane names are in view: ' + shown.map(e => e.textContent).join(', '));
  return out;
})()`

// embedFaultsJS lists what breaks in the embed: a panel's label or the
// lease's value split over lines, the embed code cut, a faint disabled Step.
const embedFaultsJS = `(() => {
  if (!document.querySelector('#demo') || !window.htmx) return null;
  const out = [];
  const lines = e => { const lh = parseFloat(getComputedStyle(e).lineHeight); return Math.round(e.getBoundingClientRect().height / lh); };
  for (const dt of document.querySelectorAll('.panel dt')) if (lines(dt) > 1) out.push('label ' + JSON.stringify(dt.innerText) + ' breaks over ' + lines(dt) + ' lines');
  for (const sel of ['[data-testid=lease-expiry]', '[data-testid=now]']) {
    const e = document.querySelector(sel);
    if (e && e.getClientRects().length > 1) out.push(sel + ' ' + JSON.stringify(e.innerText) + ' splits over lines');
  }
  const lease = document.querySelector('[data-testid=lease-expiry]').closest('dd');
  if (lines(lease) > 1) out.push('the lease ' + JSON.stringify(lease.innerText) + ' splits over ' + lines(lease) + ' lines');
  document.querySelector('[data-testid=share]').open = true;
  const code = document.querySelector('[data-testid=embed-code]');
  if (code.scrollHeight > code.clientHeight + 1) out.push('the embed code is cut: ' + code.scrollHeight + ' px in a ' + code.clientHeight + ' px box');
  const step = document.querySelector('[data-testid=step]');
  let op = 1;
  for (let e = step; e; e = e.parentElement) op *= parseFloat(getComputedStyle(e).opacity);
  const rgb = c => c.match(/[\d.]+/g).slice(0, 3).map(Number);
  const lum = c => { const [r, g, b] = rgb(c).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const st = getComputedStyle(step);
  const l1 = lum(st.color), l2 = lum(st.backgroundColor);
  const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
  if (!step.disabled) out.push('Step is not disabled at the last frame');
  if (op < 1) out.push('the disabled Step button is drawn at opacity ' + op);
  if (ratio < 4.5) out.push('the disabled Step button has contrast ' + ratio.toFixed(2) + ', under 4.5');
  return out;
})()`

// outcomeFaultsJS lists the index's outcome links that do not read
// "switch: state → verdict" on one line.
const outcomeFaultsJS = `(() => {
  const all = document.querySelectorAll('a.outcome');
  if (!all.length) return null;
  const out = [];
  for (const a of all) {
    const text = a.innerText.replace(/\s+/g, ' ').trim();
    if (!/^.+: \S+ → \S+ .+$/.test(text)) out.push(JSON.stringify(text) + ' does not read "switch: state → verdict"');
    const lh = parseFloat(getComputedStyle(a).lineHeight);
    if (a.getBoundingClientRect().height > 2.2 * lh) out.push(JSON.stringify(text) + ' takes ' + Math.round(a.getBoundingClientRect().height / lh) + ' lines');
  }
  return out;
})()`

// nodesFaultsJS lists what the Redis nodes' table and its neighbours get
// wrong; null until the page has its demo.
const nodesFaultsJS = `(() => {
  if (!document.querySelector('#demo')) return null;
  const out = [];
  // The strip summarises the nodes; their table opens on demand.
  const more = [...document.querySelectorAll('.panel details.more')];
  more.forEach(d => { d.open = true; });
  for (const tr of document.querySelectorAll('.nodes tbody tr')) {
    const ttl = tr.cells[3];
    if (!ttl || ttl.innerText.trim() === '') out.push(tr.dataset.testid + ': the TTL cell is empty');
  }
  for (const d of document.querySelectorAll('.nodes details.keyval')) {
    d.open = true;
    const full = d.querySelector('.full');
    if (!full || !full.checkVisibility() || full.scrollWidth > full.clientWidth + 1) out.push('a key value cannot be read whole: ' + (full ? full.innerText : 'none'));
    d.open = false;
  }
  for (const b of document.querySelectorAll('.clients .belief')) {
    const lh = parseFloat(getComputedStyle(b).lineHeight);
    if (b.getBoundingClientRect().height > 1.5 * lh) out.push('belief ' + JSON.stringify(b.innerText) + ' wraps');
    const li = b.closest('li');
    if (b.getBoundingClientRect().right > li.getBoundingClientRect().right + 1) out.push('belief ' + JSON.stringify(b.innerText) + ' runs out of its panel');
  }
  for (const p of document.querySelectorAll('.panels > .panel')) {
    const last = p.lastElementChild.getBoundingClientRect().bottom, box = p.getBoundingClientRect();
    if (box.bottom - last > 48) out.push(p.querySelector('h2').innerText.trim() + ' panel leaves ' + Math.round(box.bottom - last) + ' px empty');
  }
  more.forEach(d => { d.open = false; });
  return out;
})()`

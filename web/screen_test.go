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
	srv := httptest.NewServer(posts.wrap(newTestServer(t, DefaultConfig())))
	t.Cleanup(srv.Close)
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
		s := b.waitFor("the second click to settle", func(s testkit.Screen) bool { return s.Busy == 0 })
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
		s := testkit.WaitFor(t, b.ctx, waitBudget, "frame "+want, testkit.ScreenJS, func(s testkit.Screen) bool { return s.Index == want })
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
		b := env.newTab(t, true)
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
}

// center is the middle of the element with this data-testid, in CSS pixels
// of the viewport.
func (b *tab) center(testid string) (float64, float64) {
	b.t.Helper()
	p, err := chromedp.Run(b.ctx, chromedp.Evaluate[[2]float64](`(() => {
		const e = document.querySelector('[data-testid="` + testid + `"]');
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

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

var _ = views.T

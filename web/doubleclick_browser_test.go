package web

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/internal/testkit/screen"
)

// Without JavaScript, a double click on Step at a person's pace (each press
// held 60 ms, the second 90 ms after the first is let go) is one step, ten
// times out of ten, on the server's own clock. The first press's answer is
// a redirect, and the second press may land on the page it loaded and name
// that page's frame: the server takes it for the first press's echo.
// (TestScreen's double-click/no-javascript presses twice at once, both on
// the first page.)
func TestNoJSDoubleClickAtHumanPace(t *testing.T) {
	catalog := testkit.Catalog(t)
	gc, ok := catalog.Get("gc-pause")
	if !ok {
		t.Fatal("scenario gc-pause is missing from scenarios.yaml")
	}
	s := newTestServer(t, DefaultConfig())
	s.now = time.Now // a double click's gap is timed as the server times it
	posts := &timedPosts{}
	srv := httptest.NewServer(posts.wrap(s))
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.Close)
	env := &browserEnv{browser: testkit.Chromium(t, screenBudget), base: srv.URL, sc: gc}

	const on, lang, k, tries = true, "en", 1, 10
	for i := range tries {
		b := env.newTab(t, false) // a browser of its own: no run, no cookie
		if _, err := chromedp.Call(b.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		b.open(on, k, lang)
		testkit.WaitFor(t, b.ctx, waitBudget, "frame 1", screen.ScreenJS, func(s screen.Screen) bool { return s.Index != "" })
		x, y := b.center("step")
		mark := posts.len()
		b.humanPress(x, y, 1)
		time.Sleep(90 * time.Millisecond) // the person's pace between presses, not a wait for the page
		b.humanPress(x, y, 2)
		// Settled: the page on screen was asked for after the last post
		// reached the server (its navigation starts before the post).
		shown := b.pageAfter(posts, mark)
		if got, want := shown.Index, fmt.Sprintf("%d / %d", k+1, gc.Frames()); got != want {
			t.Errorf("try %d: after a double click at a person's pace on frame %d the screen shows %q, want %q (posts from frames %v)", i+1, k, got, want, posts.froms(mark))
		}
	}
}

// pageAfter waits for a page whose answer came after the last post since
// mark reached the server (the answer of that post's redirect, or of a
// later load) to be loaded, and reads it.
func (b *tab) pageAfter(posts *timedPosts, mark int) screen.Screen {
	b.t.Helper()
	deadline := time.Now().Add(waitBudget)
	for {
		last, n := posts.last()
		if n > mark {
			got, err := chromedp.Run(b.ctx, chromedp.Evaluate[*screen.Screen](fmt.Sprintf(`document.readyState === 'complete' && performance.timeOrigin + performance.getEntriesByType('navigation')[0].responseStart + 5 >= %d ? (%s) : null`, last.UnixMilli(), screen.ScreenJS)))
			if err == nil && got != nil && got.Index != "" {
				return *got
			}
		}
		if time.Now().After(deadline) {
			where, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.href + ' ' + document.readyState + ' ' + (performance.timeOrigin + performance.getEntriesByType('navigation')[0].responseStart - `+fmt.Sprint(last.UnixMilli())+`)`))
			b.t.Fatalf("no page loaded after the last of %d posts: %s", n-mark, where)
		}
		time.Sleep(20 * time.Millisecond) // the next read of the page
	}
}

// humanPress presses the left button at x, y, holds it 60 ms as a person
// does, and lets go; count is the press's place in a series.
func (b *tab) humanPress(x, y float64, count int64) {
	b.t.Helper()
	for i, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
		if i == 1 {
			time.Sleep(60 * time.Millisecond) // the button held down
		}
		if _, err := chromedp.Call(b.ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{
			Type: typ, X: x, Y: y, Button: input.MouseButtonLeft, Buttons: 1, ClickCount: count,
		}); err != nil {
			b.t.Fatalf("mouse %s at %.0f,%.0f: %v", typ, x, y, err)
		}
	}
}

// timedPosts keeps when each click's post reached the server, and the
// frame it was made on.
type timedPosts struct {
	mu   sync.Mutex
	at   []time.Time
	from []string
}

func (p *timedPosts) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			now := time.Now()
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
			r.Body = io.NopCloser(bytes.NewReader(body))
			form, _ := url.ParseQuery(string(body))
			p.mu.Lock()
			p.at, p.from = append(p.at, now), append(p.from, form.Get("from"))
			p.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

func (p *timedPosts) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.at)
}

// last is when the last post came, and how many have.
func (p *timedPosts) last() (time.Time, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.at) == 0 {
		return time.Time{}, 0
	}
	return p.at[len(p.at)-1], len(p.at)
}

func (p *timedPosts) froms(since int) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.from[since:]...)
}

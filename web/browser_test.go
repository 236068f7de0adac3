package web

// The browser test: the demo driven in a real Chromium, clicked as a visitor
// clicks it. The other tests check the model and the HTML; this one checks
// what only a browser shows: htmx swapping #demo and pushing the address, the
// Back and Forward buttons, a double click, the page without JavaScript, and
// how the page looks on a projector and on a phone.
//
// Every frame is checked against the model: demo.Replay computes the frame the
// screen must show, and a few of the chapter's numbers are written out below
// as well, so that a broken model cannot pass by agreeing with itself.
//
//	go test -run Browser -v .                      # needs Chromium
//	UPDATE_SCREENSHOT=1 go test -run Browser .     # also rewrites docs/screenshot.png

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/backoff"
	"github.com/distlock/fencing-demo/demo/sql"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/internal/testkit/screen"
	"github.com/distlock/fencing-demo/views"
)

const (
	browserBudget = 4 * time.Minute  // the whole test, browser start included; a hang fails here
	tabBudget     = 90 * time.Second // one subtest's tab
	waitBudget    = 30 * time.Second // one wait for the screen to show a frame, on a machine at a load of 10 too
)

func TestBrowser(t *testing.T) {

	catalog := testkit.Catalog(t)
	sc, ok := catalog.Get("gc-pause")
	if !ok {
		t.Fatal("scenario gc-pause is missing from scenarios.yaml")
	}
	screen.CheckCheckpoints(t, sc)

	posts := &postLog{}
	srv := httptest.NewServer(posts.wrap(newTestServer(t, DefaultConfig())))
	t.Cleanup(srv.Close)

	// One browser for every subtest; each subtest gets its own tab in its
	// own browser context, so the tabs share no history cache or storage.
	browserCtx := testkit.Chromium(t, browserBudget)

	env := &browserEnv{browser: browserCtx, base: srv.URL, sc: sc, posts: posts}

	for _, tc := range []struct {
		name string
		on   bool
		lang string
	}{
		{"walk/fencing-on/en", true, "en"},
		{"walk/fencing-off/en", false, "en"},
		{"walk/fencing-on/ja", true, "ja"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := env.newTab(t, true)
			b.open(tc.on, 1, tc.lang)
			s := b.waitFrame(tc.on, 1, tc.lang)
			if tc.lang == "ja" {
				// Written out, not taken from views.T: the words a Japanese
				// reader sees.
				if got, want := s.StepLabel, "1手すすめる"; got != want {
					t.Errorf("step button=%q, want %q", got, want)
				}
				if got, want := s.Holder, "(空き)"; got != want {
					t.Errorf("holder at frame 1=%q, want %q", got, want)
				}
			} else {
				if got, want := s.StepLabel, "Step"; got != want {
					t.Errorf("step button=%q, want %q", got, want)
				}
				if got, want := s.Holder, "(free)"; got != want {
					t.Errorf("holder at frame 1=%q, want %q", got, want)
				}
			}
			for k := 2; k <= sc.Frames(); k++ {
				b.click("step")
				b.waitFrame(tc.on, k, tc.lang)
			}

			// The switch at the last frame: same frame, the other world.
			b.click("fencing")
			s = b.waitFrame(!tc.on, sc.Frames(), tc.lang)
			if got, want := s.Pressed, strconv.FormatBool(!tc.on); got != want {
				t.Errorf("after the switch: aria-pressed=%q, want %q", got, want)
			}
		})
	}

	// Every scenario of scenarios.yaml, stepped to its end in the browser,
	// alternating languages, then its switch flipped: each frame's address,
	// index, clock, resource and verdict as the model computes them.
	t.Run("every-scenario", func(t *testing.T) {
		for i, sc := range catalog.Scenarios {
			lang := []string{"en", "ja"}[i%2]
			t.Run(sc.ID+"/"+lang, func(t *testing.T) {
				b := env.newTab(t, true)
				b.do(chromedp.Navigate(srv.URL + views.FrameURL(sc, sc.Default, 1, lang)))
				for k := 1; k <= sc.Frames(); k++ {
					if k > 1 {
						b.click("step")
					}
					b.waitScenarioFrame(sc, sc.Default, k, lang)
				}
				b.click(sc.Switch)
				b.waitScenarioFrame(sc, !sc.Default, sc.Frames(), lang)
			})
		}
	})

	// The share box follows the frame on screen: the link to it, the iframe
	// snippet with a title, and a QR code image of the link that loads.
	t.Run("share", func(t *testing.T) {
		b := env.newTab(t, true)
		b.open(true, 3, "en")
		b.waitFrame(true, 3, "en")
		b.click("step")
		b.waitFrame(true, 4, "en")
		b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=share]').open = true`))
		type shareBox struct {
			Link, Embed, QR string
			QRLoaded, Copy  bool
		}
		want := shareBox{
			Link:     srv.URL + frameURL(true, 4, "en"),
			Embed:    srv.URL + "/embed/gc-pause?fencing=on&step=4&lang=en",
			QR:       "/qr.svg?path=" + url.QueryEscape(frameURL(true, 4, "en")),
			QRLoaded: true, Copy: true,
		}
		ctx, cancel := context.WithTimeout(b.ctx, waitBudget)
		defer cancel()
		var got shareBox
		for {
			var err error
			got, err = chromedp.Run(ctx, chromedp.Evaluate[shareBox](`(() => {
				const img = document.querySelector('[data-testid=qr]');
				const code = document.querySelector('[data-testid=embed-code]').value;
				const src = (code.match(/src="([^"]+)"/) || [])[1] || '';
				return {
					link: document.querySelector('[data-testid=share-link]').value,
					embed: /title="[^"]+"/.test(code) ? src : 'no title in ' + code,
					qr: img.getAttribute('src'),
					qrLoaded: img.complete && img.naturalWidth > 0,
					copy: !document.querySelector('button.copy').hidden,
				};
			})()`))
			if err == nil && got == want {
				return
			}
			select {
			case <-ctx.Done():
				t.Fatalf("share box:\n got %+v\nwant %+v", got, want)
			case <-time.After(50 * time.Millisecond):
			}
		}
	})

	t.Run("history", func(t *testing.T) {
		const on, lang = true, "en"
		b := env.newTab(t, true)
		b.open(on, 1, lang)
		b.waitFrame(on, 1, lang)
		for k := 2; k <= 4; k++ {
			b.click("step")
			b.waitFrame(on, k, lang)
		}
		// htmx pushed each frame's address, so Back and Forward walk the
		// frames; htmx keeps no copy of the page (hx-history="false"), so it
		// asks the server for that address, and app.js wires the page
		// again: the player shows and its help button opens the help.
		b.do(chromedp.NavigateBack())
		b.waitFrame(on, 3, lang)
		b.do(chromedp.Evaluate[chromedp.Void](`document.getElementById('help-open').click()`))
		testkit.WaitFor(b.t, b.ctx, waitBudget, "the player and its help after Back",
			`!document.getElementById('player').hidden && document.getElementById('help').open`, func(ok bool) bool { return ok })
		b.do(chromedp.Evaluate[chromedp.Void](`document.getElementById('help').close()`))
		b.do(chromedp.NavigateForward())
		b.waitFrame(on, 4, lang)
		b.do(chromedp.NavigateBack())
		b.waitFrame(on, 3, lang)

		// The server's run stands at frame 4 while the screen shows 3. The
		// click says which frame it was made on, so it goes 3 -> 4, not 4 -> 5.
		b.click("step")
		b.waitFrame(on, 4, lang)
		b.click("step")
		b.waitFrame(on, 5, lang)
		b.do(chromedp.NavigateBack())
		b.waitFrame(on, 4, lang)
		b.do(chromedp.NavigateBack())
		b.waitFrame(on, 3, lang)
		b.click("step") // the run is at 5 now; still 3 -> 4
		b.waitFrame(on, 4, lang)

		// A reload asks the server for the address alone: a deep link.
		b.do(chromedp.Reload())
		b.waitFrame(on, 4, lang)
		b.do(chromedp.NavigateBack())
		b.waitFrame(on, 3, lang)
		b.click("step")
		b.waitFrame(on, 4, lang)
	})

	t.Run("double-click", func(t *testing.T) {
		const on, lang, k = true, "en", 3
		b := env.newTab(t, true)
		b.open(on, 1, lang)
		b.waitFrame(on, 1, lang)
		for i := 2; i <= k; i++ {
			b.click("step")
			b.waitFrame(on, i, lang)
		}
		run := b.screen().Run
		if !views.ValidRunID(run) {
			t.Fatalf("run id in the form at frame %d=%q, want 32 hex digits", k, run)
		}
		mark := posts.len()

		// Two clicks back to back, in one script, as a quick double click does
		// before the first answer is back. The step form has hx-post and
		// htmx's default sync: while the form's first request is in flight,
		// a second one is queued, and dropped once the swap has replaced its
		// form. So one POST is made, from frame k, and the screen shows k+1.
		// A double click that comes after the swap is TestScreen's
		// double-click/pointer: one step too.
		b.do(chromedp.Evaluate[chromedp.Void](
			`document.querySelector('[data-testid=step]').click(); document.querySelector('[data-testid=step]').click()`))
		// Settled: the frame and the address bar (set after the paint) have
		// both left frame k, and nothing is in flight.
		before := env.base + frameURL(on, k, lang)
		s := b.waitFor("the double click to settle", func(s screen.Screen) bool {
			return s.Index != fmt.Sprintf("%d / %d", k, sc.Frames()) && s.Href != before && s.Busy == 0
		})
		b.checkFrame(s, on, k+1, lang)
		var froms []string
		for _, p := range posts.since(mark) {
			if p.Get("run") == run {
				froms = append(froms, p.Get("action")+" from "+p.Get("from"))
			}
		}
		for _, f := range froms {
			if f != "step from "+strconv.Itoa(k) {
				t.Errorf("after a double click at frame %d the server saw %q, want only steps from frame %d", k, froms, k)
			}
		}
		if len(froms) == 0 {
			t.Errorf("no request of the double click reached the server")
		}

		// The server's promise, asked directly: the same click from frame
		// k, sent again late, lands on k+1 and does not push the run on.
		form := url.Values{"run": {run}, "from": {strconv.Itoa(k)}, sc.Switch: {"on"}, "lang": {lang}}
		req, err := http.NewRequestWithContext(b.ctx, http.MethodPost, env.base+"/scenarios/gc-pause/step", strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("HX-Request", "true")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got, want := resp.Header.Get("HX-Push-Url"), frameURL(on, k+1, lang); resp.StatusCode != http.StatusOK || got != want {
			t.Errorf("step repeated from frame %d: %s, HX-Push-Url=%q, want 200 and %q", k, resp.Status, got, want)
		}
	})

	t.Run("no-javascript", func(t *testing.T) {
		const lang = "en"
		b := env.newTab(t, false)
		if _, err := chromedp.Call(b.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		on := true
		b.open(on, 1, lang)
		b.checkFrame(b.screen(), on, 1, lang)
		if b.screen().Htmx {
			t.Fatal("htmx ran although JavaScript is disabled")
		}
		// Each click is a plain form POST answered with 303 See Other to
		// the frame's address (with the run); the test waits for each load.
		for k := 2; k <= sc.Frames(); k++ {
			b.submit("step")
			b.checkFrame(b.screen(), on, k, lang)
		}
		b.submit("fencing")
		on = false
		b.checkFrame(b.screen(), on, sc.Frames(), lang)
		b.submit("back")
		b.checkFrame(b.screen(), on, sc.Frames()-1, lang)
		b.submit("reset")
		b.checkFrame(b.screen(), on, 1, lang)
	})

	t.Run("screenshot/1280x720", func(t *testing.T) {
		const on, lang = false, "en"
		b := env.newTab(t, true)
		b.do(chromedp.EmulateViewport(1280, 720))
		b.open(on, sc.Frames(), lang)
		b.waitFrame(on, sc.Frames(), lang)
		img := b.fullScreenshot()
		cfg, err := png.DecodeConfig(bytes.NewReader(img))
		if err != nil {
			t.Fatalf("screenshot is not a PNG: %v", err)
		}
		if cfg.Width != 1280 || cfg.Height < 720 {
			t.Errorf("screenshot is %dx%d, want 1280 wide and at least 720 high", cfg.Width, cfg.Height)
		}
		// The README's screenshot lives at the repository's top, not
		// beside this package (go test runs in web/).
		if os.Getenv("UPDATE_SCREENSHOT") == "1" {
			out := testkit.Path(t, "docs/screenshot.png")
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(out, img, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s (%dx%d)", out, cfg.Width, cfg.Height)
		}
	})

	t.Run("screenshot/phone-360", func(t *testing.T) {
		const on = false
		b := env.newTab(t, true)
		b.do(chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile))
		for _, lang := range []string{"en", "ja"} {
			b.open(on, sc.Frames(), lang)
			b.waitFrame(on, sc.Frames(), lang)
			w, err := chromedp.Run(b.ctx, chromedp.Evaluate[struct {
				Scroll int `json:"scroll"`
				Inner  int `json:"inner"`
			}](`({scroll: document.documentElement.scrollWidth, inner: window.innerWidth})`))
			if err != nil {
				t.Fatal(err)
			}
			if w.Inner != 360 || w.Scroll > w.Inner {
				t.Errorf("%s at 360 px: scrollWidth=%d, innerWidth=%d; want innerWidth 360 and no horizontal scrolling", lang, w.Scroll, w.Inner)
			}
			if lang == "en" && os.Getenv("UPDATE_SCREENSHOT") == "1" {
				out := filepath.Join(os.TempDir(), "phone.png")
				if err := os.WriteFile(out, b.fullScreenshot(), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s", out)
			}
		}
	})
}

// frameURL is the address of a frame, as the address bar shows it.
func frameURL(on bool, k int, lang string) string {
	return fmt.Sprintf("/scenarios/gc-pause?fencing=%s&step=%d&lang=%s", demo.OnOff(on), k, lang)
}

// browserEnv is what the subtests share: one browser and one server.
type browserEnv struct {
	browser context.Context
	base    string
	sc      *demo.Scenario
	posts   *postLog
}

// tab is one browser tab of a subtest.
type tab struct {
	t   *testing.T
	ctx context.Context
	env *browserEnv
	js  bool
}

// newTab opens a tab in a browser context of its own, closed when the
// subtest ends. With js, it counts the page's requests in flight (see
// screen.InflightJS); the script is the test's, added through DevTools, so the
// page's Content-Security-Policy does not apply to it.
func (env *browserEnv) newTab(t *testing.T, js bool) *tab {
	t.Helper()
	return env.newTabFor(t, js, tabBudget)
}

// newTabFor is newTab for a subtest that reads many pages in one tab, whose
// whole walk a busy machine may take longer than one subtest's budget over.
func (env *browserEnv) newTabFor(t *testing.T, js bool, budget time.Duration) *tab {
	t.Helper()
	ctx := testkit.NewTab(t, env.browser, budget)
	if js {
		if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: screen.InflightJS}); err != nil {
			t.Fatal(err)
		}
	}
	return &tab{t: t, ctx: ctx, env: env, js: js}
}

func (b *tab) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatal(err)
	}
}

// open types a frame's address into the address bar.
func (b *tab) open(on bool, k int, lang string) {
	b.t.Helper()
	b.do(chromedp.Navigate(b.env.base + frameURL(on, k, lang)))
}

// click clicks the control with this data-testid, as a mouse does.
func (b *tab) click(testid string) {
	b.t.Helper()
	b.do(chromedp.Click(chromedp.CSS(`[data-testid="` + testid + `"]`)))
}

// submit clicks a control that submits its form without htmx and waits for
// the page that the redirect leads to.
func (b *tab) submit(testid string) {
	b.t.Helper()
	resp, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.CSS(`[data-testid="`+testid+`"]`)))
	if err != nil {
		b.t.Fatalf("clicking %s: %v", testid, err)
	}
	if resp.Status != http.StatusOK {
		b.t.Fatalf("clicking %s: the page came back %d %s", testid, resp.Status, resp.StatusText)
	}
}

func (b *tab) screen() screen.Screen {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[screen.Screen](screen.ScreenJS))
	if err != nil {
		b.t.Fatalf("reading the screen: %v", err)
	}
	return s
}

// waitFor reads the screen, once the page has loaded, until ok says it is
// done (testkit.WaitFor).
func (b *tab) waitFor(what string, ok func(screen.Screen) bool) screen.Screen {
	b.t.Helper()
	return testkit.WaitFor(b.t, b.ctx, waitBudget, what, screen.ScreenJS, ok)
}

// waitFrame waits until the page shows frame k at its own address, with no
// request in flight and htmx settled (htmx wires the swapped-in buttons only
// when it settles), then checks every value on it.
func (b *tab) waitFrame(on bool, k int, lang string) screen.Screen {
	b.t.Helper()
	index := fmt.Sprintf("%d / %d", k, b.env.sc.Frames())
	href := b.env.base + frameURL(on, k, lang)
	s := b.waitFor(fmt.Sprintf("frame %q at %s", index, href), func(s screen.Screen) bool {
		return s.Error != "" || s.Index == index && s.Href == href && s.Busy == 0 && s.Htmx == b.js
	})
	b.checkFrame(s, on, k, lang)
	return s
}

// checkFrame checks every displayed value against the model's frame k and the
// chapter's screen.Checkpoints, and the address bar against the frame's address.
func (b *tab) checkFrame(s screen.Screen, on bool, k int, lang string) {
	b.t.Helper()
	where := fmt.Sprintf("fencing %s, frame %d, %s", demo.OnOff(on), k, lang)
	if s.Error != "" {
		b.t.Fatalf("%s: the page shows an error: %s", where, s.Error)
	}
	href := b.env.base + frameURL(on, k, lang)
	if b.js {
		if s.Href != href {
			b.t.Errorf("%s: address bar=%q, want %q", where, s.Href, href)
		}
	} else if !regexp.MustCompile(`^` + regexp.QuoteMeta(href) + `(&run=[0-9a-f]{32})?$`).MatchString(s.Href) {
		b.t.Errorf("%s: address bar=%q, want %q with the run", where, s.Href, href)
	}
	want := screen.Want(b.t, b.env.sc, on, k, lang)
	wf := screen.Fields(want)
	for i, f := range screen.Fields(s) {
		if f[1] != wf[i][1] {
			b.t.Errorf("%s: %s=%q, want %q", where, f[0], f[1], wf[i][1])
		}
	}
	for _, cp := range screen.Checkpoints {
		if cp.On == on && cp.Frame == k {
			if got := screen.Field(s, cp.Field); got != cp.Want {
				b.t.Errorf("%s: %s=%q, want the chapter's %q", where, cp.Field, got, cp.Want)
			}
		}
	}
	if k == b.env.sc.Frames() {
		if on && s.RejectMarks == 0 {
			b.t.Errorf("%s: the timeline has no rejected mark", where)
		}
		if !on && s.StaleMarks == 0 {
			b.t.Errorf("%s: the timeline has no stale mark", where)
		}
	}
	if b.t.Failed() {
		b.t.FailNow()
	}
}

// fullScreenshot captures the whole page as a PNG, past the bottom of the
// viewport.
func (b *tab) fullScreenshot() []byte {
	b.t.Helper()
	img, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatal(err)
	}
	return img
}

// postLog records the form of every POST the server receives, so a test can
// see which clicks reached it and from which frame.
type postLog struct {
	mu    sync.Mutex
	posts []url.Values
}

func (l *postLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
			if err == nil {
				r.Body = io.NopCloser(bytes.NewReader(body))
				form, _ := url.ParseQuery(string(body))
				if form == nil {
					form = url.Values{}
				}
				form.Set("action", path.Base(r.URL.Path))
				l.mu.Lock()
				l.posts = append(l.posts, form)
				l.mu.Unlock()
			}
		}
		h.ServeHTTP(w, r)
	})
}

func (l *postLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.posts)
}

func (l *postLog) since(n int) []url.Values {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]url.Values(nil), l.posts[n:]...)
}

// scenarioJS reads what every scenario's page shows, whatever its store.
const scenarioJS = `(() => {
  const q = id => document.querySelector('[data-testid="' + id + '"]');
  const text = id => { const e = q(id); return e ? e.innerText.replace(/\s+/g, ' ').trim() : ''; };
  return {
    index: text('step-index'), now: text('now'), value: text('resource-value'),
    verdict: q('verdict') ? (q('verdict').dataset.verdict || '') : '',
    pressed: (document.querySelector('#demo .switch [aria-pressed]') || {getAttribute: () => ''}).getAttribute('aria-pressed'),
    href: location.href,
    busy: (window.__inflight ? window.__inflight() : 0) +
      document.querySelectorAll('.htmx-request, .htmx-added, .htmx-settling, .htmx-swapping').length,
    error: text('error-message'),
  };
})()`

type scenarioScreen struct {
	Index, Now, Value, Verdict, Pressed, Href, Error string
	Busy                                             int
}

// waitScenarioFrame waits until the tab shows frame k of sc at its address
// and checks the values every scenario has against the model.
func (b *tab) waitScenarioFrame(sc *demo.Scenario, on bool, k int, lang string) {
	b.t.Helper()
	r, err := demo.Replay(sc, on, k)
	if err != nil {
		b.t.Fatal(err)
	}
	f := r.Frame()
	want := scenarioScreen{
		Index:   fmt.Sprintf("%d / %d", k, sc.Frames()),
		Now:     views.Clock(sc, f.Now),
		Value:   `"` + f.Data + `"`,
		Verdict: f.Verdict().Kind.String(),
		Pressed: strconv.FormatBool(on),
		Href:    b.env.base + views.FrameURL(sc, on, k, lang),
	}
	if f.Data == "" {
		want.Value = views.T(lang, "empty")
	}
	if _, ok := sql.Of(f); ok {
		want.Value = "" // a database shows its rows, not the chapter's resource
	}
	if _, ok := backoff.Of(f); ok {
		want.Value = "" // the retries' chart and figures, no resource
	}
	got := testkit.WaitFor(b.t, b.ctx, waitBudget, fmt.Sprintf("%s %s frame %d", sc.ID, demo.OnOff(on), k), scenarioJS, func(got scenarioScreen) bool {
		return got.Error != "" || got.Busy == 0 && got.Index == want.Index && got.Href == want.Href
	})
	got.Busy = 0
	if got != want {
		b.t.Fatalf("%s %s=%s frame %d (%s):\n got %+v\nwant %+v", sc.ID, sc.Switch, demo.OnOff(on), k, lang, got, want)
	}
}

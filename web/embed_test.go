package web

// The embed test: the demo inside a textbook's page on another site, as a
// reader sees it. The textbook is a host page served as http://localhost:<port>
// and the demo comes from http://127.0.0.1:<port>, a different site, in a
// browser that blocks third-party cookies. The reader steps, flips the switch
// and steps back inside the frame; the host sizes the frame from the demo's
// height message; and a demo configured to allow only another site refuses
// to appear in the frame at all.
//
//	go test -run Embed -v .      # needs Chromium, as the browser test does

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/internal/testkit/screen"
	"github.com/distlock/fencing-demo/views"
)

const embedBudget = 3 * time.Minute // the whole test, browser start included

// hostPage is the textbook's page: the iframe a textbook pastes, and a script
// that sizes the frame from the demo's message and notes what it received.
const hostPage = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>A textbook chapter</title></head>
<body>
<h1>Chapter 8: distributed locks</h1>
<iframe id="demo" src="%s" title="Distributed lock demo: lease and fencing token" width="100%%" height="300" style="border:0"></iframe>
<script>
  const frame = document.getElementById('demo');
  frame.addEventListener('load', () => { document.body.dataset.loads = String(Number(document.body.dataset.loads || 0) + 1); });
  addEventListener('message', (e) => {
    if (!e.data || e.data.type !== 'fencing-demo:height') return;
    document.body.dataset.height = String(e.data.height);
    document.body.dataset.origin = e.origin;
    frame.height = e.data.height;
  });
</script>
</body>
</html>`

func TestEmbed(t *testing.T) {
	catalog := testkit.Catalog(t)
	gc, ok := catalog.Get("gc-pause")
	if !ok {
		t.Fatal("scenario gc-pause is missing from scenarios.yaml")
	}

	// The demo, on 127.0.0.1; a second one that only http://example.org may
	// frame; and the textbook, on localhost.
	app := httptest.NewServer(newTestServer(t, DefaultConfig()))
	t.Cleanup(app.Close)
	strictCfg := DefaultConfig()
	strictCfg.FrameAncestors = "http://example.org"
	strict := httptest.NewServer(newTestServer(t, strictCfg))
	t.Cleanup(strict.Close)
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		page := hostPage
		if r.URL.Query().Get("width") == "1000" {
			// The snippet as the README gives it, in a 1000 px column.
			page = strings.Replace(page, `width="100%%" height="300"`, `width="1000" height="760"`, 1)
		}
		fmt.Fprintf(w, page, html.EscapeString(r.URL.Query().Get("src")))
	}))
	t.Cleanup(host.Close)
	hostBase := strings.Replace(host.URL, "://127.0.0.1:", "://localhost:", 1)
	// A probe on the demo's site that sets a cookie meant for third-party
	// use, to show that this browser really refuses such cookies.
	probe := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Set-Cookie", "probe"+strings.Trim(r.URL.Path, "/")+"=1; Path=/; SameSite=None; Secure")
		fmt.Fprint(w, "<!DOCTYPE html><title>probe</title><p>probe</p>")
	}))
	t.Cleanup(probe.Close)

	const src = "/embed/gc-pause?fencing=on&step=1&lang=en"

	t.Run("csp", func(t *testing.T) {
		for _, c := range []struct {
			base, want string
		}{
			{app.URL, "frame-ancestors *"},
			{strict.URL, "frame-ancestors http://example.org"},
		} {
			resp, err := http.Get(c.base + src)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			csp := resp.Header.Get("Content-Security-Policy")
			if resp.StatusCode != http.StatusOK || !strings.HasSuffix(csp, c.want) || strings.Count(csp, "frame-ancestors") != 1 {
				t.Errorf("GET %s: %s, Content-Security-Policy %q; want 200 and %q", src, resp.Status, csp, c.want)
			}
			if xfo := resp.Header.Get("X-Frame-Options"); xfo != "" {
				t.Errorf("GET %s: X-Frame-Options %q would stop every textbook from framing the demo", src, xfo)
			}
		}
	})

	t.Run("no-cookies-over-http", func(t *testing.T) {
		// Every kind of answer the demo gives, with and without htmx.
		form := url.Values{"from": {"1"}, "fencing": {"on"}, "lang": {"en"}}.Encode()
		for _, r := range []struct{ method, path, body string }{
			{http.MethodGet, "/", ""},
			{http.MethodGet, "/scenarios?lang=ja", ""},
			{http.MethodGet, src, ""},
			{http.MethodGet, "/scenarios/nope", ""},
			{http.MethodGet, "/qr.svg?path=" + url.QueryEscape(views.FrameURL(gc, true, 1, "en")), ""},
			{http.MethodPost, "/embed/gc-pause/step", form},
			{http.MethodPost, "/scenarios/gc-pause/switch", form},
		} {
			for _, htmx := range []bool{false, true} {
				req, err := http.NewRequest(r.method, app.URL+r.path, strings.NewReader(r.body))
				if err != nil {
					t.Fatal(err)
				}
				if r.body != "" {
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				}
				if htmx {
					req.Header.Set("HX-Request", "true")
				}
				resp, err := http.DefaultTransport.RoundTrip(req) // no redirects followed: a 303 is checked too
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				// The one cookie is a click's run key: HttpOnly, this site
				// only, and nothing else kept in it.
				for _, c := range resp.Cookies() {
					if c.Name != runCookieName || !views.ValidRunID(c.Value) || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
						t.Errorf("%s %s (htmx %v): Set-Cookie %+v; want only the HttpOnly run key", r.method, r.path, htmx, c)
					}
				}
			}
		}
	})

	browser := testkit.Chromium(t, embedBudget,
		chromedp.Flag("test-third-party-cookie-phaseout", true),
		chromedp.Flag("ignore-certificate-errors", true), // the probe's certificate is httptest's own
	)
	env := &browserEnv{browser: browser, base: app.URL, sc: gc}

	t.Run("framed", func(t *testing.T) {
		page := openTab(t, env, 75*time.Second)
		// Both ways of blocking third-party cookies: the command-line flag
		// above and the DevTools setting here.
		if _, err := chromedp.Call(page.ctx, network.SetCookieControls, network.SetCookieControlsParams{EnableThirdPartyCookieRestriction: true}); err != nil {
			t.Fatal(err)
		}

		// The probe first: its cookie is kept when it is first party...
		page.do(chromedp.Navigate(probe.URL + "/first"))
		if got := cookieNames(t, page.ctx); !strings.Contains(got, "probefirst") {
			t.Fatalf("the probe's first-party cookie was not stored (cookies: %q): the check below would prove nothing", got)
		}
		// ...and refused inside the textbook's frame.
		page.do(chromedp.Navigate(hostBase + "/?src=" + url.QueryEscape(probe.URL+"/third")))
		page.waitJS("the probe's frame to load", `document.body.dataset.loads === '1'`)
		if got := cookieNames(t, page.ctx); strings.Contains(got, "probethird") {
			t.Fatalf("a third-party cookie was stored (cookies: %q): this browser does not block third-party cookies", got)
		}
		before := cookieNames(t, page.ctx)
		// The demo opened on its own, first party, where a cookie would be
		// kept: it sets none there either.
		page.do(chromedp.Navigate(app.URL + src))
		if got := cookieNames(t, page.ctx); got != before {
			t.Errorf("opening %s first party: cookies went from %q to %q; the demo must set none", src, before, got)
		}

		page.do(chromedp.Navigate(hostBase + "/?src=" + url.QueryEscape(app.URL+src)))
		page.waitJS("the demo's height message", `Number(document.body.dataset.height) > 0`)
		msg, err := chromedp.Run(page.ctx, chromedp.Evaluate[struct {
			Height string `json:"height"`
			Origin string `json:"origin"`
		}](`({height: document.body.dataset.height, origin: document.body.dataset.origin})`))
		if err != nil {
			t.Fatal(err)
		}
		if msg.Origin != app.URL {
			t.Errorf("height message from %q, want the demo's origin %q", msg.Origin, app.URL)
		}
		t.Logf("the host received height %s from %s", msg.Height, msg.Origin)

		f := attachFrame(t, page, app.URL+"/embed/")
		f.waitEmbed(gc, true, 1, "en")
		chrome, err := chromedp.Run(f.ctx, chromedp.Evaluate[struct {
			Header   bool   `json:"header"`
			Embedded bool   `json:"embedded"`
			Cookie   string `json:"cookie"`
			Framed   bool   `json:"framed"`
		}](`({header: !!document.querySelector('header.site, header'), embedded: document.body.classList.contains('embedded'),
			cookie: document.cookie, framed: window.top !== window})`))
		if err != nil {
			t.Fatal(err)
		}
		if !chrome.Framed {
			t.Fatal("the attached target is not the framed demo")
		}
		if chrome.Header || !chrome.Embedded {
			t.Errorf("embed page: site header shown=%v, body.embedded=%v; want no header, embedded", chrome.Header, chrome.Embedded)
		}

		// Step, the switch, Back: each click in the frame, clicked as a
		// mouse clicks, and each frame checked against the model.
		f.click("step")
		s := f.waitEmbed(gc, true, 2, "en")
		if s.Pressed != "true" {
			t.Errorf("after Step: aria-pressed=%q, want true", s.Pressed)
		}
		f.click(gc.Switch)
		s = f.waitEmbed(gc, false, 2, "en")
		if s.Pressed != "false" {
			t.Errorf("after the switch: aria-pressed=%q, want false", s.Pressed)
		}
		f.click("back")
		f.waitEmbed(gc, false, 1, "en")

		if c, err := chromedp.Run(f.ctx, chromedp.Evaluate[string](`document.cookie`)); err != nil || c != "" || chrome.Cookie != "" {
			t.Errorf("document.cookie in the frame: %q then %q (err %v), want empty", chrome.Cookie, c, err)
		}
		if after := cookieNames(t, page.ctx); after != before {
			t.Errorf("the browser's cookies went from %q to %q while the demo was used in the frame; it must set none", before, after)
		}
		if h, err := chromedp.Run(page.ctx, chromedp.Evaluate[int](`Number(document.body.dataset.height)`)); err != nil || h <= 0 {
			t.Errorf("the host's last height message: %d (err %v), want > 0", h, err)
		}
	})

	// A textbook that gives the demo a 1000 px column: inside the real
	// cross-site frame the stage keeps its two columns.
	t.Run("framed-1000", func(t *testing.T) {
		page := openTab(t, env, 45*time.Second)
		page.do(chromedp.Navigate(hostBase + "/?width=1000&src=" + url.QueryEscape(app.URL+src)))
		f := attachFrame(t, page, app.URL+"/embed/")
		f.waitEmbed(gc, true, 1, "en")
		got, err := chromedp.Run(f.ctx, chromedp.Evaluate[struct {
			Width int  `json:"width"`
			Cols  bool `json:"cols"`
		}](`(() => { const n = document.querySelector('[data-testid=narration]').getBoundingClientRect(), d = document.querySelector('.timeline').getBoundingClientRect();
			return {width: innerWidth, cols: n.right <= d.left && Math.abs(n.top - d.top) < 2}; })()`))
		if err != nil {
			t.Fatal(err)
		}
		if got.Width != 1000 || !got.Cols {
			t.Errorf("in a 1000 px cross-site frame: the frame is %d px wide, narration and diagram side by side: %v; want 1000 and true", got.Width, got.Cols)
		}
	})

	t.Run("frame-ancestors-refused", func(t *testing.T) {
		page := openTab(t, env, 45*time.Second)
		page.do(chromedp.Navigate(hostBase + "/?src=" + url.QueryEscape(strict.URL+src)))
		page.waitJS("the frame to finish loading", `document.body.dataset.loads === '1'`)
		f := attachFrame(t, page, strict.URL+"/embed/")
		got, err := chromedp.Run(f.ctx, chromedp.Evaluate[struct {
			Href string `json:"href"`
			Demo bool   `json:"demo"`
		}](`({href: location.href, demo: !!document.getElementById('demo')})`))
		if err != nil {
			t.Fatal(err)
		}
		if got.Demo || strings.HasPrefix(got.Href, strict.URL) {
			t.Errorf("a demo with frame-ancestors http://example.org loaded in a frame on %s: the frame shows %s (demo present: %v)", hostBase, got.Href, got.Demo)
		}
		if h, err := chromedp.Run(page.ctx, chromedp.Evaluate[string](`document.body.dataset.height || ''`)); err != nil || h != "" {
			t.Errorf("the host got a height message %q (err %v) from a demo that must not load", h, err)
		}
		t.Logf("the refused frame shows %s", got.Href)
	})
}

// attachFrame finds the cross-site iframe whose address starts with prefix
// and returns a tab that runs in it. Chromium keeps a frame from another
// site in a process of its own, as a target of its own, which DevTools
// lists; detaching at the end leaves the frame in its page.
func attachFrame(t *testing.T, page *tab, prefix string) *tab {
	t.Helper()
	deadline := time.Now().Add(waitBudget)
	for {
		infos, err := chromedp.Targets(page.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range infos {
			if info.Type == "iframe" && strings.HasPrefix(info.URL, prefix) {
				ctx, cancel := chromedp.NewContext(page.ctx, chromedp.WithTargetID(info.TargetID), chromedp.WithDetachOnCancel())
				t.Cleanup(cancel)
				if err := chromedp.Do(ctx); err != nil {
					t.Fatalf("attaching to the frame %s: %v", info.URL, err)
				}
				return &tab{t: t, ctx: ctx, env: page.env, js: true}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no iframe target at %s among %d targets", prefix, len(infos))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitEmbed waits until the frame shows frame k of sc at its embed address,
// settled, and checks every value against the model.
func (b *tab) waitEmbed(sc *demo.Scenario, on bool, k int, lang string) screen.Screen {
	b.t.Helper()
	index := fmt.Sprintf("%d / %d", k, sc.Frames())
	href := b.env.base + views.Place{Place: demo.Place{Sc: sc, On: on, Step: k}, Lang: lang, View: views.EmbedView}.URL()
	s := b.waitFor(fmt.Sprintf("frame %q at %s", index, href), func(s screen.Screen) bool {
		return s.Error != "" || s.Index == index && s.Href == href && s.Busy == 0 && s.Htmx
	})
	if s.Error != "" {
		b.t.Fatalf("the frame shows an error: %s", s.Error)
	}
	want := screen.Fields(screen.Want(b.t, sc, on, k, lang))
	for i, f := range screen.Fields(s) {
		if f[1] != want[i][1] {
			b.t.Errorf("embedded, fencing %s frame %d: %s=%q, want %q", demo.OnOff(on), k, f[0], f[1], want[i][1])
		}
	}
	return s
}

// cookieNames lists every cookie of the tab's browser context, in the
// browser's order, as "name@domain" joined by spaces.
func cookieNames(t *testing.T, ctx context.Context) string {
	t.Helper()
	res, err := chromedp.CallBrowser(ctx, storage.GetCookies, storage.GetCookiesParams{BrowserContextID: chromedp.FromContext(ctx).BrowserContextID})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range res.Cookies {
		names = append(names, c.Name+"@"+c.Domain)
	}
	return strings.Join(names, " ")
}

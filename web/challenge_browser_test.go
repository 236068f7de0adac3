package web

// A challenge in a real Chromium: a reader opens it, breaks it in free
// play by clicking the finder's shortest history, submits it and sees
// "broken at par"; the answer, in an iframe of a host's page, posts the
// xAPI statement and Canvas's resize message to that page. The list and a
// solved challenge are looked at on a laptop and a phone in both
// languages.
//
//	go test -run BrowserChallenge -v ./web
//	CHALLENGE_SHOTS=/tmp/shots go test -run BrowserChallenge ./web   # keeps the screenshots

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// textbookPage is a textbook's page embedding the demo: it keeps every
// message the iframe posts in window.got.
const textbookPage = `<!DOCTYPE html><html><body><h1>Chapter 8</h1>
<script>window.got = []; addEventListener("message", e => window.got.push(e.data));</script>
<iframe id="demo" width="1000" height="700" src="SRC"></iframe></body></html>`

func TestBrowserChallenge(t *testing.T) {
	s := judgeServer(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/host", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(strings.Replace(textbookPage, "SRC", r.URL.Query().Get("src"), 1)))
	})
	mux.Handle("/", s)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.Close)
	env := &browserEnv{browser: testkit.Chromium(t, 5*time.Minute), base: srv.URL}
	ch := challengeByID(t, s, "gc-pause-break")
	prop, _ := ch.Sc.Promise()
	r, err := find.Find(ch.Start(), prop, find.Options{})
	if err != nil || !r.Found {
		t.Fatalf("no break found: %v", err)
	}

	b := env.newTab(t, true)
	b.do(chromedp.Navigate(srv.URL + views.ChallengesURL("en")))
	b.do(chromedp.Click(chromedp.CSS(`[data-testid="challenge-` + ch.ID + `"] h2 a`)))
	b.waitJS("the challenge's page", `!!document.querySelector('[data-testid="challenge-work"]')`)
	b.click("challenge-work")
	b.waitJS("free play at the challenge's start", `!!window.htmx && !!document.querySelector('[data-testid="submit-`+ch.ID+`"]')`)
	for i, a := range r.Trace {
		b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="offer"][data-action="` + a.Source + `"]:not([disabled])').click()`))
		b.waitJS("action "+strconv.Itoa(i+1)+" played", `document.querySelectorAll('[data-testid="free-history"] li').length === `+strconv.Itoa(i+1)+
			` && !document.querySelector('.htmx-request')`)
	}
	b.click("submit-" + ch.ID)
	b.waitJS("the answer", `(document.querySelector('[data-testid="challenge-result"]') || {dataset: {}}).dataset.outcome === 'broken-at-par'`)
	verdict, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="challenge-verdict"]').innerText`))
	if err != nil || !strings.Contains(verdict, "(par "+strconv.Itoa(len(r.Trace))+")") {
		t.Errorf("the answer says %q (%v), want broken in %d moves (par %d)", verdict, err, len(r.Trace), len(r.Trace))
	}
	answer, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.pathname + location.search`))
	if err != nil {
		t.Fatal(err)
	}

	// The same answer in a textbook's iframe tells its host.
	h := env.newTab(t, true)
	h.do(chromedp.Navigate(srv.URL + "/host?src=" + strings.ReplaceAll(answer, "&", "%26")))
	testkit.WaitFor(t, h.ctx, waitBudget, "the xAPI statement and the resize at the host",
		`JSON.stringify(window.got)`, func(got string) bool {
			return strings.Contains(got, `"type":"fencing-demo:xapi"`) && strings.Contains(got, `/verbs/completed`) &&
				strings.Contains(got, `"success":true`) && strings.Contains(got, `"https://fencing-demo.example/xapi/at-par":true`) &&
				strings.Contains(got, `lti.frameResize`) && strings.Contains(got, srv.URL+"/challenges/"+ch.ID)
		})

	// A lab in a textbook's iframe: its judge's answer tells the host of a
	// lab fixed.
	l := env.newTab(t, true)
	fencing := tryOf(t, ch.Sc, "fencing").Build.String()
	l.do(chromedp.Navigate(srv.URL + "/host?src=" + url.QueryEscape(views.LabURL(ch.Sc.ID, fencing, "en", false))))
	l.waitJS("the lab in the iframe", `(() => { const d = document.getElementById('demo').contentDocument; return !!d && !!d.defaultView.htmx && !!d.querySelector('[data-testid="judge"]'); })()`)
	l.do(chromedp.Evaluate[chromedp.Void](`document.getElementById('demo').contentDocument.querySelector('[data-testid="judge"]').click()`))
	testkit.WaitFor(t, l.ctx, 2*time.Minute, "the lab fixed, told to the host", `JSON.stringify(window.got)`, func(got string) bool {
		return strings.Contains(got, `"type":"fencing-demo:xapi"`) && strings.Contains(got, `/verbs/completed`) && strings.Contains(got, srv.URL+"/scenarios/gc-pause/lab")
	})

	challengeShots(t, env, map[string]string{
		"list":      srv.URL + views.ChallengesURL("LANG"),
		"challenge": srv.URL + views.ChallengeURL(ch.ID, "LANG"),
		"freeplay":  srv.URL + views.WorkURL(ch, "LANG"),
		"solved":    srv.URL + strings.Replace(answer, "lang=en", "lang=LANG", 1),
		"fixed": srv.URL + views.ChallengeSubmitURL("gc-pause-fix") + "?" + views.BuildParam + "=" +
			views.EncodeBuild(tryOf(t, ch.Sc, "fencing").Build.String()) + "&lang=LANG",
	})
}

// challengeShots looks at the list, a challenge, free play at its start
// and a solved challenge at 1280x720 and
// on a 360 px phone, in both languages: nothing wider than the screen,
// and nothing axe finds on the laptop.
// With CHALLENGE_SHOTS set, the screenshots are kept there.
func challengeShots(t *testing.T, env *browserEnv, pages map[string]string) {
	dir := os.Getenv("CHALLENGE_SHOTS")
	axeJS, err := os.ReadFile("testdata/axe/axe.min.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "ja"} {
		for what, page := range pages {
			for _, size := range []struct {
				w, h   int64
				mobile bool
			}{{1280, 720, false}, {360, 740, true}} {
				b := env.newTab(t, false)
				if size.mobile {
					b.do(chromedp.EmulateViewport(size.w, size.h, chromedp.EmulateMobile))
				} else {
					b.do(chromedp.EmulateViewport(size.w, size.h))
				}
				b.do(chromedp.Navigate(strings.Replace(page, "LANG", lang, 1)))
				b.waitJS("the page", `document.readyState === 'complete' && !!document.querySelector('h1')`)
				wide, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > innerWidth + 1`))
				if err != nil || wide {
					t.Errorf("%s at %d px: wider than the screen (%v)", strings.Replace(page, "LANG", lang, 1), size.w, err)
				}
				if !size.mobile {
					b.checkAxe(axeJS, what+" "+lang)
				}
				if dir != "" {
					name := filepath.Join(dir, "challenge-"+what+"-"+lang+"-"+strconv.FormatInt(size.w, 10)+".png")
					if err := os.WriteFile(name, b.fullScreenshot(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
}

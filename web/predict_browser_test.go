package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// The question in a browser. A lecture on two replicas behind a real
// HAProxy (docs/haproxy.cfg, balancing round robin) that share a real
// redis-server: the lecturer presses A on the question's frame, 20
// followers answer, each a browser tab with a browser context (cookies,
// connections) of its own, through the balancer, so their answers land on
// both replicas; the lecturer's page shows the totals, and the Step
// reveals the model's answer on every follower's screen. Then a reader
// alone, with and without JavaScript. Every wait is for what the screen
// shows, never a sleep.
func TestPredictBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server, haproxy and a browser: not with -short")
	}
	rd := realserver.StartRedis(t, "predict")
	cfg := DefaultConfig()
	cfg.FollowRedis = "redis://" + rd.Addr() + "/0"
	a, b := newTestServer(t, cfg), newTestServer(t, cfg)
	lb := haproxyRoundRobin(t, a, b)
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	browser := testkit.Chromium(t, 6*time.Minute)
	const budget = 60 * time.Second // 21 tabs on a shared 2-core machine

	t.Run("lecture", func(t *testing.T) {
		lect := testkit.NewTab(t, browser, 5*time.Minute)
		do(t, lect, chromedp.EmulateViewport(1920, 1080), chromedp.Navigate(lb+"/scenarios/gc-pause?fencing=on&step=5&lang=en&present=1"))
		waitShown(t, lect, budget, `[data-testid="step-index"]`, "5 / 7")
		do(t, lect, chromedp.Click(chromedp.CSS(`[data-testid="step"]`)))
		waitShown(t, lect, budget, `[data-testid="step-index"]`, "6 / 7")
		link := testkit.WaitFor(t, lect, budget, "the follow link", `(document.querySelector('[data-testid="follow-link"]') || {}).pathname || ''`, func(s string) bool { return s != "" })

		// 20 followers in tabs, five in Japanese.
		var tabs []context.Context
		for i := range 20 {
			ctx := testkit.NewTab(t, browser, 5*time.Minute)
			lang := map[bool]string{true: "ja", false: "en"}[i < 5]
			do(t, ctx, chromedp.EmulateViewport(360, 740), chromedp.Navigate(lb+link+"?lang="+lang))
			waitShown(t, ctx, budget, `[data-testid="step-index"]`, "6 / 7")
			testkit.WaitFor(t, ctx, budget, "the stream live", `document.getElementById('follow').dataset.state`, func(s string) bool { return s == "live" })
			tabs = append(tabs, ctx)
		}

		do(t, lect, chromedp.KeyEvent("a"))
		testkit.WaitFor(t, lect, budget, "the room's panel", `(document.querySelector('[data-testid="room"]') || {dataset: {}}).dataset.open`, func(s string) bool { return s == "true" })

		// 12 say rejected (right with fencing on), 5 accepted, 3 skipped.
		choice := func(i int) string {
			switch {
			case i < 12:
				return "rejected"
			case i < 17:
				return "accepted"
			}
			return "write-skipped"
		}
		for i, ctx := range tabs {
			sel := `[data-testid="answer-` + choice(i) + `"]`
			testkit.WaitFor(t, ctx, budget, "the question on a follower's phone", `!!document.querySelector('`+sel+`')`, func(ok bool) bool { return ok })
			do(t, ctx, chromedp.Click(chromedp.CSS(sel)))
		}
		for i, ctx := range tabs {
			sel := `[data-testid="answer-` + choice(i) + `"]`
			testkit.WaitFor(t, ctx, budget, fmt.Sprintf("follower %d's answer marked", i), `document.querySelector('`+sel+`').getAttribute('aria-pressed')`, func(s string) bool { return s == "true" })
		}

		total := testkit.WaitFor(t, lect, budget, "20 answers on the lecturer's screen", `[...document.querySelectorAll('[data-testid^="bar-"]')].map(b => b.dataset.testid + '=' + b.dataset.count).join(' ')`,
			func(s string) bool { return s == "bar-accepted=5 bar-rejected=12 bar-write-skipped=3" })
		t.Logf("the lecturer's bars: %s", total)
		waitShown(t, lect, budget, `[data-testid="room-total"]`, "20 answered")
		shoot(t, lect, "lecture-open-1920")

		do(t, lect, chromedp.Click(chromedp.CSS(`.controls [data-testid="step"]`)))
		waitShown(t, lect, budget, `[data-testid="step-index"]`, "7 / 7")
		testkit.WaitFor(t, lect, budget, "the reveal on the projector", `(document.querySelector('[data-testid="predict-answer"]') || {dataset: {}}).dataset.value`, func(s string) bool { return s == "rejected" })
		shoot(t, lect, "lecture-reveal-1920")
		for i, ctx := range tabs {
			testkit.WaitFor(t, ctx, budget, fmt.Sprintf("the reveal on follower %d", i), `(document.querySelector('[data-testid="predict-answer"]') || {dataset: {}}).dataset.value`, func(s string) bool { return s == "rejected" })
			want := map[bool]string{true: "12 人 (60%)", false: "12 (60%)"}[i < 5]
			waitShown(t, ctx, budget, `[data-testid="bar-rejected"] .bar-count`, want)
		}
		shoot(t, tabs[0], "follower-reveal-360-ja")
	})

	t.Run("alone-js", func(t *testing.T) {
		ctx := testkit.NewTab(t, browser, time.Minute)
		do(t, ctx, chromedp.EmulateViewport(1280, 720), chromedp.Navigate(lb+"/scenarios/gc-pause?fencing=off&step=6&lang=ja"))
		testkit.WaitFor(t, ctx, budget, "htmx", `!!window.htmx`, func(ok bool) bool { return ok })
		do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="predict"] summary`)), chromedp.Click(chromedp.CSS(`[data-testid="guess-rejected"]`)))
		waitShown(t, ctx, budget, `[data-testid="predict-mark"]`, "不正解 ✗")
		testkit.WaitFor(t, ctx, budget, "the marked frame's address", `location.search`, func(s string) bool { return strings.Contains(s, "step=7") && strings.Contains(s, "guess=rejected") })
		shoot(t, ctx, "alone-wrong-1280-ja")
	})

	t.Run("alone-no-javascript", func(t *testing.T) {
		ctx := testkit.NewTab(t, browser, time.Minute)
		if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		do(t, ctx, chromedp.Navigate(lb+"/scenarios/gc-pause?fencing=on&step=6&lang=en"), chromedp.Click(chromedp.CSS(`[data-testid="predict"] summary`)))
		if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="guess-rejected"]`))); err != nil {
			t.Fatal(err)
		}
		waitShown(t, ctx, budget, `[data-testid="predict-mark"]`, "Right ✓")
		waitShown(t, ctx, budget, `[data-testid="step-index"]`, "7 / 7")
	})
}

func do(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// waitShown waits until the element sel holds want, its white space
// collapsed.
func waitShown(t *testing.T, ctx context.Context, budget time.Duration, sel, want string) {
	t.Helper()
	testkit.WaitFor(t, ctx, budget, fmt.Sprintf("%s to say %q", sel, want),
		`((document.querySelector('`+sel+`') || {}).textContent || '').replace(/\s+/g, ' ').trim()`, func(s string) bool { return s == want })
}

// shoot saves a screenshot of the tab under $PREDICT_SHOTS, when set: for
// a person to look at, never compared.
func shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("PREDICT_SHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// haproxyRoundRobin puts backends behind a real HAProxy configured with
// docs/haproxy.cfg, its servers these backends and its balance round robin
// (the file's leastconn would keep a lecture's few streams on one replica),
// and returns its address.
func haproxyRoundRobin(t *testing.T, backends ...http.Handler) string {
	t.Helper()
	bin := realserver.Binary(t, "haproxy", "haproxy")
	cfg, err := os.ReadFile(filepath.Join("..", "docs", "haproxy.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	port := realserver.FreePort(t)
	var servers strings.Builder
	for i, h := range backends {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		fmt.Fprintf(&servers, "    server r%d %s check\n", i, strings.TrimPrefix(srv.URL, "http://"))
	}
	text := string(cfg)
	for _, edit := range [][2]string{{"bind :8080", "bind " + realserver.Addr(port)}, {"balance leastconn", "balance roundrobin"}} {
		if !strings.Contains(text, edit[0]) {
			t.Fatalf("docs/haproxy.cfg has no %q", edit[0])
		}
		text = strings.Replace(text, edit[0], edit[1], 1)
	}
	text = regexp.MustCompile(`(?m)^\s*server .*\n`).ReplaceAllString(text, "") + servers.String()
	dir := t.TempDir()
	path := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	url := "http://" + realserver.Addr(port)
	realserver.Launch(t, realserver.Spec{
		Name: "haproxy", Path: bin, Args: []string{"-db", "-f", path}, Dir: dir, ReadyIn: 30 * time.Second,
		Ready: func(ctx context.Context) error { // both replicas up in its eyes: a round of requests reaches each
			for range len(backends) {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/healthz", nil)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					return err
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					return fmt.Errorf("haproxy: /healthz %s", resp.Status)
				}
			}
			return nil
		},
	})
	return url
}

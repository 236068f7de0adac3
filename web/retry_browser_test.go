package web

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/distlock/fencing-demo/internal/testkit"
)

// A click refused with 429 (the address's allowance of new runs is spent) is
// tried again by the page itself after Retry-After, with a note saying so,
// and lands on the next frame without the visitor doing anything.
func TestBrowserRetries429(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RunRate, cfg.RunBurst = 1, 1
	s := newTestServer(t, cfg)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	env := &browserEnv{browser: testkit.Chromium(t, browserBudget), base: srv.URL, sc: gcPause(t), posts: &postLog{}}
	b := env.newTab(t, true)
	b.open(true, 1, "en")
	b.waitFrame(true, 1, "en")
	// Another tab at the same address spends the allowance just before.
	testkit.MustStatus(t, clickFrom(t, s, "127.0.0.1:1", "step", place{from: 1, on: true, lang: "en"}, true), http.StatusOK)
	b.click("step")
	testkit.WaitFor(b.t, b.ctx, waitBudget, "the retry note", `(document.querySelector('[data-testid="retry-note"]')||{}).textContent||""`,
		func(s string) bool { return s != "" })
	testkit.WaitFor(b.t, b.ctx, waitBudget, "the retry to replace the error", `document.querySelector('[data-testid="error"]') === null`,
		func(gone bool) bool { return gone })
	b.waitFrame(true, 2, "en")
}

package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/internal/testkit/screen"
	"github.com/distlock/fencing-demo/views"
)

// A click refused with 429 (the address's allowance of new runs is spent) is
// tried again by the page itself after Retry-After, with a note saying so,
// and lands on the next frame without the visitor doing anything.
func TestBrowserRetries429(t *testing.T) {
	cfg := DefaultConfig()
	// One new run per 4 s: the click below must come within it of the
	// other tab's, on a busy machine too, and the retry within a wait.
	cfg.RunRate, cfg.RunBurst = 0.25, 1
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

// A follower whose stream is cut and then refused (a full lecture, a replica
// going away) says it is reconnecting, opens the stream again by itself once
// the server takes it, and catches up on the moves made meanwhile. A browser's
// EventSource alone gives up for good at the first refusal.
func TestBrowserFollowerReconnects(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, DefaultConfig())
	cut := &streamCutter{next: s}
	srv := httptest.NewServer(cut)
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.Close) // before srv.Close, which waits for open streams
	env := &browserEnv{browser: testkit.Chromium(t, browserBudget), base: srv.URL, sc: sc, posts: &postLog{}}

	l := startLecture(t, s, true, "en") // frame 2
	fol := env.newTab(t, true)
	fol.do(chromedp.Navigate(srv.URL + l.follow + "?lang=en"))
	at := func(k int) func(screen.Screen) bool {
		return func(s screen.Screen) bool { return s.Index == fmt.Sprintf("%d / %d", k, sc.Frames()) }
	}
	fol.waitFor("the follower at frame 2", at(2))
	status := `document.getElementById('follow-status').textContent`
	waitText(t, fol, status, views.T("en", "follow.status.live"))

	cut.refuse(true) // every open stream ends, every new one gets a 503
	waitText(t, fol, status, views.T("en", "follow.status.lost"))
	testkit.Eventually(t, waitBudget, "the follower refused at least once", func() bool { return cut.refused.Load() > 0 })
	l.step(t, s) // frame 3, then 4, while the follower is cut off
	l.step(t, s)
	cut.refuse(false)
	fol.waitFor("the follower caught up at frame 4", at(4))
	waitText(t, fol, status, views.T("en", "follow.status.live"))
	l.step(t, s)
	fol.waitFor("the follower live again at frame 5", at(5))
}

// streamCutter passes requests to next, except that while refusing it ends
// every follow stream open and answers new ones with a 503, as a full
// lecture or a balancer with no replica up does.
type streamCutter struct {
	next    http.Handler
	mu      sync.Mutex
	on      bool
	cancels []context.CancelFunc
	refused atomic.Int64
}

func (c *streamCutter) refuse(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = on
	if on {
		for _, cancel := range c.cancels {
			cancel()
		}
		c.cancels = nil
	}
}

func (c *streamCutter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/events") {
		c.next.ServeHTTP(w, r)
		return
	}
	c.mu.Lock()
	if c.on {
		c.mu.Unlock()
		c.refused.Add(1)
		http.Error(w, "full", http.StatusServiceUnavailable)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	c.cancels = append(c.cancels, cancel)
	c.mu.Unlock()
	c.next.ServeHTTP(w, r.WithContext(ctx))
}

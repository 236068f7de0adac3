package web

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/internal/testkit"
)

// clickFrom is click made from the client address addr, with extra headers
// as "Name", "value" pairs.
func clickFrom(t *testing.T, s http.Handler, addr, action string, p place, htmx bool, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := testkit.PostRequest("/scenarios/gc-pause/"+action, p.form(), htmx)
	r.RemoteAddr = addr
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	return testkit.Do(t, s, r)
}

// mustRateLimited fails unless w is the 429 that keeps the visitor at here.
func mustRateLimited(t *testing.T, w *httptest.ResponseRecorder, here, lang string, htmx bool) {
	t.Helper()
	testkit.MustStatus(t, w, http.StatusTooManyRequests)
	secs, err := strconv.Atoi(w.Header().Get("Retry-After"))
	if err != nil || secs < 1 {
		t.Fatalf("Retry-After=%q, want a whole number of seconds", w.Header().Get("Retry-After"))
	}
	if htmx {
		mustFragment(t, w.Body.Bytes())
	}
	doc := testkit.Parse(t, w.Body.Bytes())
	want := map[string]string{"en": "Please wait about " + strconv.Itoa(secs) + " seconds", "ja": strconv.Itoa(secs) + " 秒ほど待って"}[lang]
	if got := testkit.TestID(t, doc, "error-message"); !strings.Contains(got, want) {
		t.Fatalf("error-message=%q, want it to contain %q", got, want)
	}
	if got := testkit.Attr(t, doc, "continue", "href"); got != here {
		t.Fatalf("continue=%q, want %q: the visitor's place", got, here)
	}
}

// Each address may start RunBurst runs at once, then RunRate a second; the
// next new run is refused with a 429 that keeps the visitor's place. Clicks
// on runs the server has are never refused, and another address has its
// own allowance.
func TestRunRateLimit(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RunRate, cfg.RunBurst = 0.001, 2 // no refill within the test
	s := newTestServer(t, cfg)
	const a, b = "192.0.2.1:1234", "198.51.100.7:4321"
	start := place{from: 1, on: true, lang: "en"}

	var live []string
	for range 2 {
		w := clickFrom(t, s, a, "step", start, true)
		testkit.MustStatus(t, w, http.StatusOK)
		live = append(live, runID(t, testkit.Parse(t, w.Body.Bytes())))
	}
	for _, htmx := range []bool{true, false} {
		mustRateLimited(t, clickFrom(t, s, a, "step", start, htmx), gcPauseURL(true, 1, "en"), "en", htmx)
	}
	// In Japanese, from frame 3, with a run the server does not have (evicted
	// or from another replica): it too would be a new run.
	there := place{run: strings.Repeat("0f", 16), from: 3, on: false, lang: "ja"}
	mustRateLimited(t, clickFrom(t, s, a, "step", there, true), gcPauseURL(false, 3, "ja"), "ja", true)
	// A made-up X-Forwarded-For does not buy a new allowance.
	mustRateLimited(t, clickFrom(t, s, a, "step", start, true, "X-Forwarded-For", "203.0.113.9"), gcPauseURL(true, 1, "en"), "en", true)

	// The runs already started go on, every click of them.
	p := place{run: live[0], from: 2, on: true, lang: "en"}
	for step := 3; step <= 7; step++ {
		w := clickFrom(t, s, a, "step", p, true)
		testkit.MustStatus(t, w, http.StatusOK)
		mustShow(t, testkit.Parse(t, w.Body.Bytes()), testkit.Frame(t, gcPause(t), true, step), "en")
		p.from = step
	}
	w := clickFrom(t, s, a, "switch", place{run: live[1], from: 2, on: true, lang: "en"}, false)
	testkit.MustStatus(t, w, http.StatusSeeOther)

	// Another address starts its own.
	testkit.MustStatus(t, clickFrom(t, s, b, "step", start, true), http.StatusOK)
}

// Behind a proxy on a private network (named by -trusted-proxies), each
// visitor's address comes from X-Forwarded-For; from anyone else the header
// is not believed.
func TestRunRateLimitBehindProxy(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RunRate, cfg.RunBurst, cfg.BehindProxy = 0.001, 1, true
	cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.2/32")}
	s := newTestServer(t, cfg)
	const proxy, stranger = "10.0.0.2:5555", "203.0.113.50:80"
	start := place{from: 1, on: true, lang: "en"}
	xff := "X-Forwarded-For"

	testkit.MustStatus(t, clickFrom(t, s, proxy, "step", start, true, xff, "198.51.100.1"), http.StatusOK)
	testkit.MustStatus(t, clickFrom(t, s, proxy, "step", start, true, xff, "198.51.100.2"), http.StatusOK)
	mustRateLimited(t, clickFrom(t, s, proxy, "step", start, true, xff, "198.51.100.1"), gcPauseURL(true, 1, "en"), "en", true)

	testkit.MustStatus(t, clickFrom(t, s, stranger, "step", start, true, xff, "198.51.100.3"), http.StatusOK)
	mustRateLimited(t, clickFrom(t, s, stranger, "step", start, true, xff, "198.51.100.4"), gcPauseURL(true, 1, "en"), "en", true)
}

// A rate of 0 turns the limit off.
func TestRunRateLimitOff(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RunRate, cfg.RunBurst = 0, 1
	s := newTestServer(t, cfg)
	for range 50 {
		testkit.MustStatus(t, clickFrom(t, s, "192.0.2.1:1", "step", place{from: 1, on: true, lang: "en"}, true), http.StatusOK)
	}
}

// The defaults let a classroom behind one NAT start its runs together.
func TestRunRateLimitDefaults(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for i := range 150 {
		w := clickFrom(t, s, "192.0.2.1:1", "step", place{from: 1, on: i%2 == 0, lang: "ja"}, true)
		testkit.MustStatus(t, w, http.StatusOK)
	}
}

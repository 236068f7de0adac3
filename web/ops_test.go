package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/labstack/echo/v4"
)

// Operations: the process starts fast, stops gracefully, bounds slow
// clients, and never shows a stack trace.

// Every phase of a request has a time limit, so slow clients cannot hold
// connections open for ever.
func TestServerTimeouts(t *testing.T) {
	hs := newTestServer(t, DefaultConfig()).HTTPServer(":0")
	for name, d := range map[string]time.Duration{
		"ReadHeaderTimeout": hs.ReadHeaderTimeout,
		"ReadTimeout":       hs.ReadTimeout,
		"WriteTimeout":      hs.WriteTimeout,
		"IdleTimeout":       hs.IdleTimeout,
	} {
		if d <= 0 || d > 2*time.Minute {
			t.Errorf("%s=%s, want a limit between 0 and 2m", name, d)
		}
	}
	if hs.MaxHeaderBytes != 16<<10 {
		t.Errorf("MaxHeaderBytes=%d, want 16 KiB", hs.MaxHeaderBytes)
	}
	if hs.IdleTimeout > 30*time.Second {
		t.Errorf("IdleTimeout=%s, want at most 30s: idle keep-alive connections cost memory and descriptors", hs.IdleTimeout)
	}
	if hs.ReadHeaderTimeout > 10*time.Second {
		t.Errorf("ReadHeaderTimeout=%s, want at most 10s against slow headers", hs.ReadHeaderTimeout)
	}
}

// A handler that panics answers 500 with the usual error page, which says
// nothing of the panic; the log has the story.
func TestPanicShowsNoStackTrace(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	s.echo.GET("/test-only/boom", func(echo.Context) error { panic("secret detail in the panic") })
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/test-only/boom", nil))
	if got, want := w.Code, http.StatusInternalServerError; got != want {
		t.Fatalf("status=%d, want %d", got, want)
	}
	for _, leak := range []string{"secret detail", "goroutine", ".go:", "panic"} {
		if strings.Contains(w.Body.String(), leak) {
			t.Fatalf("body contains %q, want no stack trace:\n%s", leak, w.Body)
		}
	}
	if got := testkit.TestID(t, testkit.Parse(t, w.Body.Bytes()), "error-message"); !strings.Contains(got, "Something unexpected went wrong") {
		t.Fatalf("error-message=%q, want the internal error message", got)
	}
}

// Links out of the demo do not carry the visitor's frame and run to other
// sites.
func TestReferrerPolicy(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for name, target := range map[string]string{
		"page":  gcPauseURL(true, 3, "en"),
		"index": "/scenarios",
		"error": "/scenarios/nope",
	} {
		w := testkit.Get(t, s, target)
		if got, want := w.Header().Get("Referrer-Policy"), "strict-origin-when-cross-origin"; got != want {
			t.Errorf("%s: Referrer-Policy=%q, want %q", name, got, want)
		}
	}
	w := click(t, s, "step", place{from: 1, on: true, lang: "en"}, true)
	if got := w.Header().Get("Referrer-Policy"); got == "" {
		t.Error("htmx answer: no Referrer-Policy")
	}
}

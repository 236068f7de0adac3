package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// An error answered for a request whose context is already cancelled (a body
// cut off at the read timeout, a client that half-closed) still carries its
// status and its page, and the page is answered once: one Vary, not two.
func TestErrorPageOnCancelledRequest(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := httptest.NewRequest(http.MethodGet, "/no-such-page", nil).WithContext(ctx)
	w := testkit.Do(t, s, r)
	testkit.MustStatus(t, w, http.StatusNotFound)
	doc := testkit.Parse(t, w.Body.Bytes())
	if got := testkit.TestID(t, doc, "error-message"); !strings.Contains(got, "/no-such-page") {
		t.Fatalf("error-message=%q, want it to name the page", got)
	}
	n := 0
	for _, v := range w.Header().Values("Vary") {
		n += strings.Count(v, "HX-Request")
	}
	if n != 1 {
		t.Fatalf("Vary=%q, want HX-Request once: the error was answered %d times", w.Header().Values("Vary"), n)
	}
}

// A body over 16 KiB (16384 bytes, as the README says) is a 413 whether its
// size was declared or only found out while reading a chunked body; a click
// of exactly 16 KiB is read.
func TestBodyLimit(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	form := place{from: 1, on: true, lang: "en"}.form().Encode() + "&pad="
	body := func(n int) string { return form + strings.Repeat("x", n-len(form)) }
	for _, tc := range []struct {
		name    string
		size    int
		chunked bool
		want    int
	}{
		{"declared, at the limit", 16384, false, http.StatusOK},
		{"declared, one over", 16385, false, http.StatusRequestEntityTooLarge},
		{"chunked, at the limit", 16384, true, http.StatusOK},
		{"chunked, one over", 16385, true, http.StatusRequestEntityTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/scenarios/gc-pause/step", strings.NewReader(body(tc.size)))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			r.Header.Set("HX-Request", "true")
			if tc.chunked {
				r.ContentLength = -1
				r.Body = io.NopCloser(r.Body) // no length known up front
			}
			testkit.MustStatus(t, testkit.Do(t, s, r), tc.want)
		})
	}
}

// A query with a broken %-escape is a 400, as a form with one is, not a page
// that quietly ignores the part it could not read.
func TestBadQueryEscape(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, target := range []string{"/scenarios/gc-pause?fencing=on&step=%zz", "/scenarios?lang=%e", "/follow/" + strings.Repeat("a", 32) + "?lang=%"} {
		w := testkit.Get(t, s, target)
		testkit.MustStatus(t, w, http.StatusBadRequest)
		if got := testkit.TestID(t, testkit.Parse(t, w.Body.Bytes()), "error-message"); !strings.Contains(got, "query") {
			t.Fatalf("%s: error-message=%q, want it to say the query could not be read", target, got)
		}
	}
}

// gzip with a weight of zero, however it is written, means "not gzip".
func TestGzipRefused(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for ae, want := range map[string]bool{
		"gzip;q=0": false, "gzip; q=0.0": false, "GZIP;Q=0.000": false, "br, gzip;q=0": false,
		"gzip": true, "gzip;q=0.5": true, "*": true, "*;q=0": false, "*, gzip;q=0": false, "identity": false,
	} {
		w := testkit.Get(t, s, gcPauseURL(true, 7, "en"), "Accept-Encoding", ae)
		if got := w.Header().Get("Content-Encoding") == "gzip"; got != want {
			t.Errorf("Accept-Encoding %q: gzipped=%v, want %v", ae, got, want)
		}
	}
}

// A 429 that asks for one second says "a second", not "1 seconds".
func TestRateLimitOneSecond(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RunRate, cfg.RunBurst = 1, 1
	s := newTestServer(t, cfg)
	start := place{from: 1, on: true, lang: "en"}
	testkit.MustStatus(t, clickFrom(t, s, "192.0.2.1:1", "step", start, true), http.StatusOK)
	w := clickFrom(t, s, "192.0.2.1:1", "step", start, true)
	testkit.MustStatus(t, w, http.StatusTooManyRequests)
	if got := w.Header().Get("Retry-After"); got != "1" {
		t.Fatalf("Retry-After=%q, want 1", got)
	}
	msg := testkit.TestID(t, testkit.Parse(t, w.Body.Bytes()), "error-message")
	if !strings.Contains(msg, "about a second") || strings.Contains(msg, "1 seconds") {
		t.Fatalf("error-message=%q, want \"about a second\"", msg)
	}
}

// A megabyte of Accept-Language is cut to its first few entries before it is
// parsed: the language is still the browser's first choice, and parsing costs
// no more than for a real browser's header.
func TestLongAcceptLanguage(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	header := "ja," + strings.Repeat("x-bogus-tag-", 1<<20/12)
	w := testkit.Get(t, s, "/scenarios/gc-pause", "Accept-Language", header)
	testkit.MustStatus(t, w, http.StatusOK)
	if got := testkit.Parse(t, w.Body.Bytes()).Find("html").AttrOr("lang", ""); got != "ja" {
		t.Fatalf("lang=%q, want ja: the header's first entry", got)
	}
}

// loggedServer is a test server whose log the test reads.
func loggedServer(t *testing.T, cfg Config) (*Server, *testkit.LockedBuffer) {
	t.Helper()
	var log testkit.LockedBuffer
	s, err := New(cfg, testkit.Catalog(t), testkit.Guide(t), testkit.Static(t), slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return s, &log
}

// A page asked for by a client that has half-closed (its request's context
// is cancelled before the answer is drawn) is drawn all the same: no 500, no
// ERROR in the log.
func TestPageOnCancelledRequest(t *testing.T) {
	s, log := loggedServer(t, DefaultConfig())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, target := range []string{gcPauseURL(true, 3, "en"), "/scenarios", "/"} {
		w := testkit.Do(t, s, httptest.NewRequest(http.MethodGet, target, nil).WithContext(ctx))
		if w.Code >= 500 {
			t.Errorf("GET %s with a cancelled context: %d, want no 5xx", target, w.Code)
		}
	}
	if strings.Contains(log.String(), "level=ERROR") {
		t.Fatalf("the log has errors:\n%s", log.String())
	}
}

// A click whose body is not a form (multipart, JSON) is a 415 whose way back
// is the start, never a click silently read as one made on frame 1.
func TestClickBodyNotAForm(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, tc := range []struct{ ctype, body string }{
		{"multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"from\"\r\n\r\n5\r\n--x--\r\n"},
		{"application/json", `{"from": 5, "fencing": "on"}`},
		{"", "from=5&fencing=on"},
	} {
		r := httptest.NewRequest(http.MethodPost, "/scenarios/gc-pause/step", strings.NewReader(tc.body))
		if tc.ctype != "" {
			r.Header.Set("Content-Type", tc.ctype)
		}
		w := testkit.Do(t, s, r)
		testkit.MustStatus(t, w, http.StatusUnsupportedMediaType)
		if got := testkit.TestID(t, testkit.Parse(t, w.Body.Bytes()), "error-message"); !strings.Contains(got, "application/x-www-form-urlencoded") {
			t.Fatalf("%q body: error-message=%q, want it to say a click is a form", tc.ctype, got)
		}
	}
}

// The 503s the server means (a lecture not started yet, /healthz while
// draining) are counted and logged at INFO (at most once a second, with the
// count; the rest at DEBUG), never at ERROR.
func TestExpectedRefusalsNotErrors(t *testing.T) {
	s, log := loggedServer(t, DefaultConfig())
	get := func(target string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
		return w
	}
	testkit.MustStatus(t, get("/follow/"+newRunID()+"?lang=en"), http.StatusServiceUnavailable)
	s.draining.Store(true)
	testkit.MustStatus(t, get("/healthz"), http.StatusServiceUnavailable)
	if got := s.Refusals(); got != 2 {
		t.Fatalf("%d refusals counted, want 2", got)
	}
	if out := log.String(); strings.Contains(out, "level=ERROR") || strings.Count(out, "level=INFO msg=request") != 1 || !strings.Contains(out, "refusals=1") {
		t.Fatalf("want one INFO request line with refusals=1 (the second within the second) and no ERROR:\n%s", out)
	}
}

// An error page has a language link, as every page does: to the same
// address in the other language, or for a click's post to the way on in
// it, and the page there speaks that language.
func TestErrorPageLanguageLink(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, c := range []struct {
		name, lang string
		req        *http.Request
		want       string
	}{
		{"unknown scenario", "en", httptest.NewRequest(http.MethodGet, "/scenarios/no-such?lang=en&step=2", nil), "/scenarios/no-such?lang=ja&step=2"},
		{"unknown page", "ja", httptest.NewRequest(http.MethodGet, "/no-such-page?lang=ja", nil), "/no-such-page?lang=en"},
		{"a click past the end", "en", func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/scenarios/gc-pause/nope", strings.NewReader("from=2&fencing=on&lang=en"))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		}(), "/scenarios/gc-pause?fencing=on&lang=ja&step=2"},
	} {
		w := testkit.Do(t, s, c.req)
		doc := testkit.Parse(t, w.Body.Bytes())
		link := doc.Find(`[data-testid="lang"]`)
		href, ok := link.Attr("href")
		if !ok {
			t.Errorf("%s: the %d page has no language link", c.name, w.Code)
			continue
		}
		if href != c.want {
			t.Errorf("%s: the language link leads to %q, want %q", c.name, href, c.want)
		}
		other := testkit.Get(t, s, href)
		if got, want := testkit.Parse(t, other.Body.Bytes()).Find("html").AttrOr("lang", ""), views.OtherLang(c.lang); got != want {
			t.Errorf("%s: the page the link leads to is in %q, want %q", c.name, got, want)
		}
	}
}

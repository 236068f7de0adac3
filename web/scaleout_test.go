package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/internal/testkit"
)

// Beyond one machine: two replicas, each with its own runs (two processes'
// worth of state), behind a load balancer that sends each request to the
// other one in turn, with no sticky sessions. A visitor who clicks through
// the whole lesson, with htmx and without JavaScript, never loses their
// place: every click says which frame it was made on, and a run is only a
// cache that the other replica fills again.

// roundRobin is a reverse proxy that alternates between backends per request
// and counts what each one served.
type roundRobin struct {
	next     atomic.Uint64
	backends []*url.URL
	served   []atomic.Int64
	proxy    *httputil.ReverseProxy
}

func newRoundRobin(t *testing.T, backends ...http.Handler) *httptest.Server {
	t.Helper()
	rr := &roundRobin{served: make([]atomic.Int64, len(backends))}
	for _, b := range backends {
		srv := httptest.NewServer(b)
		t.Cleanup(srv.Close)
		u, err := url.Parse(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		rr.backends = append(rr.backends, u)
	}
	rr.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			i := (rr.next.Add(1) - 1) % uint64(len(rr.backends))
			rr.served[i].Add(1)
			pr.SetURL(rr.backends[i])
			pr.SetXForwarded()
		},
	}
	lb := httptest.NewServer(rr.proxy)
	t.Cleanup(lb.Close)
	t.Cleanup(func() {
		for i := range rr.served {
			if rr.served[i].Load() == 0 {
				t.Errorf("backend %d served nothing: the test did not spread the visitor", i)
			}
		}
	})
	return lb
}

// browser is a visitor's HTTP client: it sees each redirect rather than
// following it, so the test can check the hop.
func browserClient() *http.Client {
	return &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func send(t *testing.T, c *http.Client, r *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := c.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode >= 500 {
		t.Fatalf("%s %s: %s", r.Method, r.URL, resp.Status)
	}
	return resp, body
}

func clickVia(t *testing.T, c *http.Client, lb, action string, p place, htmx bool) (*http.Response, []byte) {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, lb+"/scenarios/gc-pause/"+action, strings.NewReader(p.form().Encode()))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if htmx {
		r.Header.Set("HX-Request", "true")
	}
	return send(t, c, r)
}

func getVia(t *testing.T, c *http.Client, lb, target string) (*http.Response, []byte) {
	t.Helper()
	r, err := http.NewRequest(http.MethodGet, lb+target, nil)
	if err != nil {
		t.Fatal(err)
	}
	return send(t, c, r)
}

func TestScaleOutWithoutStickySessions(t *testing.T) {
	sc := gcPause(t)
	lb := newRoundRobin(t, newTestServer(t, DefaultConfig()), newTestServer(t, DefaultConfig())).URL
	c := browserClient()

	// With htmx: forward through every frame with fencing on in English,
	// flip the switch, back, reset, and forward again in Japanese.
	t.Run("htmx", func(t *testing.T) {
		p := place{from: 1, on: true, lang: "en"}
		moves := []struct {
			action string
			on     bool
			step   int
		}{
			{"step", true, 2}, {"step", true, 3}, {"step", true, 4}, {"step", true, 5},
			{"step", true, 6}, {"step", true, 7}, {"switch", false, 7}, {"back", false, 6},
			{"back", false, 5}, {"step", false, 6}, {"reset", false, 1}, {"step", false, 2},
		}
		for i, m := range moves {
			if i == len(moves)/2 {
				p.lang = "ja"
			}
			resp, body := clickVia(t, c, lb, m.action, p, true)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s from %d: %s", m.action, p.from, resp.Status)
			}
			doc := testkit.Parse(t, body)
			mustShow(t, doc, testkit.Frame(t, sc, m.on, m.step), p.lang)
			if got, want := resp.Header.Get("HX-Push-Url"), gcPauseURL(m.on, m.step, p.lang); got != want {
				t.Fatalf("%s from %d: HX-Push-Url=%q, want %q", m.action, p.from, got, want)
			}
			p = place{run: runID(t, doc), from: m.step, on: m.on, lang: p.lang}
		}
	})

	// Without JavaScript: each click is a POST and a redirect, and the GET of
	// the frame's address lands on the other replica from the POST.
	t.Run("no-js", func(t *testing.T) {
		p := place{from: 1, on: false, lang: "ja"}
		for step := 2; step <= sc.Frames(); step++ {
			resp, _ := clickVia(t, c, lb, "step", p, false)
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("step from %d: %s, want 303", p.from, resp.Status)
			}
			loc := resp.Header.Get("Location")
			if want := gcPauseURL(false, step, "ja"); loc != want {
				t.Fatalf("Location=%q, want %s: no run key in an address", loc, want)
			}
			resp, body := getVia(t, c, lb, loc)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %s", loc, resp.Status)
			}
			doc := testkit.Parse(t, body)
			mustShow(t, doc, testkit.Frame(t, sc, false, step), "ja")
			p = place{run: runID(t, doc), from: step, on: false, lang: "ja"}
		}
	})

	// A copied link opens the same frame on either replica.
	t.Run("deep links", func(t *testing.T) {
		for range 2 {
			resp, body := getVia(t, c, lb, gcPauseURL(true, 6, "en"))
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET: %s", resp.Status)
			}
			mustShow(t, testkit.Parse(t, body), testkit.Frame(t, sc, true, 6), "en")
		}
	})
}

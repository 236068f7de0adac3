package web

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// BenchmarkStepRequest is one click as htmx sends it, through the whole wired
// server: parse the form, find the live run, play one move, render the
// fragment. The clicks go round frames 1 to 7 on one run, so every iteration
// plays a move (and each lap's first click replays the run from scratch, as
// a click on a run that has moved on does).
func BenchmarkStepRequest(b *testing.B) {
	s := newTestServer(b, DefaultConfig())
	sc := gcPause(b)
	// The first click makes the run; the rest reuse it.
	w := click(b, s, "step", place{from: 1, on: true, lang: "en"}, true)
	testkit.MustStatus(b, w, http.StatusOK)
	run := runID(b, testkit.Parse(b, w.Body.Bytes()))
	last := sc.Frames() - 1 // the last frame a step can start from
	b.ReportAllocs()
	defer reportCPU(b)()
	for i := 0; b.Loop(); i++ {
		r := testkit.PostRequest("/scenarios/gc-pause/step", place{run: run, from: i%last + 1, on: true, lang: "en"}.form(), true)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("status=%d, want %d", w.Code, http.StatusOK)
		}
	}
}

// BenchmarkPage opens deep links to each frame in turn: replay the model to
// the frame and render the whole page.
func BenchmarkPage(b *testing.B) {
	s := newTestServer(b, DefaultConfig())
	sc := gcPause(b)
	var targets []string
	for step := 1; step <= sc.Frames(); step++ {
		targets = append(targets, gcPauseURL(true, step, "en"))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, targets[i%len(targets)], nil))
		if w.Code != http.StatusOK {
			b.Fatalf("status=%d, want %d", w.Code, http.StatusOK)
		}
	}
}

// BenchmarkStepRequestGzip is BenchmarkStepRequest as a browser sends it,
// asking for gzip: the answer is compressed, as every real one is.
func BenchmarkStepRequestGzip(b *testing.B) {
	s := newTestServer(b, DefaultConfig())
	sc := gcPause(b)
	w := click(b, s, "step", place{from: 1, on: true, lang: "en"}, true)
	testkit.MustStatus(b, w, http.StatusOK)
	run := runID(b, testkit.Parse(b, w.Body.Bytes()))
	last := sc.Frames() - 1
	b.ReportAllocs()
	defer reportCPU(b)()
	for i := 0; b.Loop(); i++ {
		r := testkit.PostRequest("/scenarios/gc-pause/step", place{run: run, from: i%last + 1, on: true, lang: "en"}.form(), true)
		r.Header.Set("Accept-Encoding", "gzip")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != http.StatusOK || w.Header().Get("Content-Encoding") != "gzip" {
			b.Fatalf("status=%d Content-Encoding=%q, want %d gzip", w.Code, w.Header().Get("Content-Encoding"), http.StatusOK)
		}
	}
}

// BenchmarkRenderFrame renders the part of the page a click replaces for the
// chapter's last frame (the most events and the fullest diagram) into a
// buffer: the templ side of a step, without HTTP or the model.
func BenchmarkRenderFrame(b *testing.B) {
	s := newTestServer(b, DefaultConfig())
	sc := gcPause(b)
	f := testkit.Frame(b, sc, false, sc.Frames())
	d := s.demoView(f, views.Place{Place: demo.Place{Sc: sc, On: false, Step: sc.Frames()}, Lang: "en"}, strings.Repeat("ab", 16), "")
	var buf bytes.Buffer
	ctx := context.Background()
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		buf.Reset()
		if err := views.DemoFragment(d).Render(ctx, &buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes")
}

// reportCPU adds the process's CPU time per iteration (user and system, the
// garbage collector's included) to a benchmark's figures. Unlike ns/op it
// hardly moves when other programs share the machine. Call it just before
// the loop and defer what it returns.
func reportCPU(b *testing.B) func() {
	start := processCPU()
	return func() {
		if b.N > 0 {
			b.ReportMetric((processCPU()-start)*1e9/float64(b.N), "cpu-ns/op")
		}
	}
}

package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkStepRequest is one click as htmx sends it, through the whole wired
// server: parse the form, find the live run, play one move, render the
// fragment. The clicks go round frames 1 to 7 on one run, so every iteration
// plays a move (and each lap's first click replays the run from scratch, as
// a click on a run that has moved on does).
func BenchmarkStepRequest(b *testing.B) {
	s := newTestServer(b, defaultConfig())
	sc := gcPause(b)
	// The first click makes the run; the rest reuse it.
	w := click(b, s, "step", place{from: 1, on: true, lang: "en"}, true)
	mustStatus(b, w, http.StatusOK)
	run := runID(b, parse(b, w.Body.Bytes()))
	last := sc.Frames() - 1 // the last frame a step can start from
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r := postRequest("/scenarios/gc-pause/step", place{run: run, from: i%last + 1, on: true, lang: "en"}.form(), true)
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
	s := newTestServer(b, defaultConfig())
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

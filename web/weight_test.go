package web

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// Page weight as served: the bytes a visitor's browser downloads, compressed
// as the server compresses them for a browser that asks for gzip. Sizes do
// not depend on timing, so these are plain tests.

const (
	firstLoadBudget = 40_000 // the page, its stylesheet, scripts and icon
	stepBudget      = 6_000  // one htmx click's answer
)

// A first visit to the chapter's scenario downloads at most firstLoadBudget
// bytes: the page and every file it links to, each compressed as served.
func TestFirstLoadWeight(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	page := testkit.Get(t, s, "/scenarios/gc-pause", "Accept-Encoding", "gzip")
	testkit.MustStatus(t, page, http.StatusOK)
	total := page.Body.Len() // before gunzip reads the body
	parts := []string{"page " + strconv.Itoa(total)}
	for _, u := range staticURLs(t, testkit.Parse(t, gunzip(t, page))) {
		w := testkit.Get(t, s, u, "Accept-Encoding", "gzip")
		testkit.MustStatus(t, w, http.StatusOK)
		total += w.Body.Len()
		parts = append(parts, u+" "+strconv.Itoa(w.Body.Len()))
	}
	t.Logf("first load: %d bytes (%s)", total, strings.Join(parts, ", "))
	if total > firstLoadBudget {
		t.Fatalf("first load is %d bytes compressed (%s), want at most %d", total, strings.Join(parts, ", "), firstLoadBudget)
	}
}

// Every click's answer fits stepBudget compressed, in both languages and
// switch positions, the last frame (the fullest diagram and event log)
// included.
func TestStepWeight(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	sc := gcPause(t)
	largest := 0
	for _, on := range []bool{true, false} {
		for _, lang := range []string{"ja", "en"} {
			for from := 1; from < sc.Frames(); from++ {
				r := testkit.PostRequest("/scenarios/gc-pause/step", place{from: from, on: on, lang: lang}.form(), true)
				r.Header.Set("Accept-Encoding", "gzip")
				w := testkit.Do(t, s, r)
				testkit.MustStatus(t, w, http.StatusOK)
				n := w.Body.Len()
				gunzip(t, w) // it is compressed
				if n > stepBudget {
					t.Fatalf("a step from %d (fencing %s, %s) answers %d bytes compressed, want at most %d", from, demo.OnOff(on), lang, n, stepBudget)
				}
				largest = max(largest, n)
			}
		}
	}
	t.Logf("largest step answer: %d bytes compressed", largest)
}

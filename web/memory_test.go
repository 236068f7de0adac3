package web

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
)

// What a live run costs, and that the cap on them holds memory flat.

// runBudget is the most one live run may cost: 10,000 runs (the default
// cap) in 20 MiB.
const runBudget = 2048

// heapAlloc returns the bytes of live heap objects after a full collection.
func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC() // the second one frees what the first one's finalizers let go
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// fillRuns starts n runs in rs, half with the switch on, each brought to
// frame as a student's clicks would.
func fillRuns(tb testing.TB, rs *runs, sc *demo.Scenario, n, frame int) {
	tb.Helper()
	for i := range n {
		rs.goTo("", views.Place{Place: demo.Place{Sc: sc, On: i%2 == 0, Step: frame}, Lang: "en"}, "step", time.Time{})
	}
}

// midFrame is the middle of the scenario, where a typical run stands.
func midFrame(sc *demo.Scenario) int { return (sc.Frames() + 1) / 2 }

// bytesPerRun measures the heap that n live runs at frame take, the cache's
// own entries included.
func bytesPerRun(tb testing.TB, sc *demo.Scenario, n, frame int) float64 {
	tb.Helper()
	before := heapAlloc()
	rs := newRuns(n, time.Hour, follow.NewBroker(n, nil))
	fillRuns(tb, rs, sc, n, frame)
	after := heapAlloc()
	if got := rs.Len(); got != n {
		tb.Fatalf("%d live runs, want %d", got, n)
	}
	runtime.KeepAlive(rs)
	return float64(int64(after)-int64(before)) / float64(n)
}

// BenchmarkRunMemory reports the bytes one live run costs, with 10,000 and
// 100,000 of them live in the middle of the scenario, and 10,000 at its last
// frame, where a run has the most events.
//
//	go test -run '^$' -bench RunMemory -benchtime 1x
func BenchmarkRunMemory(b *testing.B) {
	sc := gcPause(b)
	for _, c := range []struct {
		n     int
		frame int
		name  string
	}{
		{10_000, midFrame(sc), "mid"},
		{100_000, midFrame(sc), "mid"},
		{10_000, sc.Frames(), "last"},
	} {
		b.Run(strconv.Itoa(c.n)+"-"+c.name, func(b *testing.B) {
			var perRun float64
			for b.Loop() {
				perRun = bytesPerRun(b, sc, c.n, c.frame)
			}
			b.ReportMetric(perRun, "bytes/run")
		})
	}
}

// BenchmarkVisitorMemory reports what one more visitor costs the whole
// server: a click that starts a run through the wired handlers, so besides
// the run it counts what else a run brings along (a follow-along session
// would be one: it is made only when someone follows).
//
//	go test -run '^$' -bench VisitorMemory -benchtime 1x
func BenchmarkVisitorMemory(b *testing.B) {
	const n = 10_000
	var perVisitor float64
	for b.Loop() {
		cfg := DefaultConfig()
		cfg.RunRate, cfg.MaxRuns = 0, n+1
		s := newTestServer(b, cfg)
		form := place{from: 3, on: true, lang: "en"}.form().Encode()
		click := func() {
			r := httptest.NewRequest(http.MethodPost, "/scenarios/gc-pause/step", strings.NewReader(form))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			r.Header.Set("HX-Request", "true")
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				b.Fatalf("status %d", w.Code)
			}
		}
		click() // the first pays for what every server has once
		before := heapAlloc()
		for range n {
			click()
		}
		after := heapAlloc()
		if got := s.runs.Len(); got != n+1 {
			b.Fatalf("%d live runs, want %d", got, n+1)
		}
		runtime.KeepAlive(s)
		perVisitor = float64(int64(after)-int64(before)) / n
	}
	b.ReportMetric(perVisitor, "bytes/visitor")
}

// A live run stays within its budget.
func TestRunMemoryBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap with 10,000 runs")
	}
	sc := gcPause(t)
	for _, frame := range []int{midFrame(sc), sc.Frames()} {
		if got := bytesPerRun(t, sc, 10_000, frame); got > runBudget {
			t.Fatalf("a live run at frame %d costs %.0f bytes, want at most %d", frame, got, runBudget)
		}
	}
}

// Past the cap, new runs push out the least recently used: three times the
// cap's worth of new runs leaves the heap where the cap left it, and a
// visitor whose run was pushed out still lands on the right frame with their
// next click.
func TestRunMemoryAtCap(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap with thousands of runs")
	}
	const max = 5000
	sc := gcPause(t)
	cfg := DefaultConfig()
	cfg.MaxRuns = max
	s := newTestServer(t, cfg)

	// The first visitor clicks to frame 4 and keeps the page open.
	p := place{from: 1, on: false, lang: "ja"}
	for step := 2; step <= 4; step++ {
		p = mustStep(t, s, sc, "step", p, false, step)
	}

	fillRuns(t, s.runs, sc, max, midFrame(sc))
	atCap := heapAlloc()
	fillRuns(t, s.runs, sc, 3*max, midFrame(sc))
	after := heapAlloc()
	if got := s.runs.Len(); got != max {
		t.Fatalf("%d live runs, want the cap %d", got, max)
	}
	// Allow 64 bytes a run of noise: a run costs over ten times that, so
	// runs that were kept past the cap would show.
	if slack := uint64(64 * max); after > atCap+slack {
		t.Fatalf("heap %d bytes after 3x the cap of new runs, %d at the cap: grew by %d, want at most %d",
			after, atCap, after-atCap, slack)
	}

	if s.runs.has(p.run) {
		t.Fatalf("run %s is still live after %d newer runs; want it evicted", p.run, 3*max)
	}
	w := click(t, s, "step", p, true)
	testkit.MustStatus(t, w, http.StatusOK)
	doc := testkit.Parse(t, w.Body.Bytes())
	mustShow(t, doc, testkit.Frame(t, sc, false, 5), "ja")
	if got := runID(t, doc); got != p.run {
		t.Fatalf("run=%q after the eviction, want the visitor's key %q kept (it names their lecture)", got, p.run)
	}
}

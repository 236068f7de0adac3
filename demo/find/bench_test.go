package find_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// The finder's speed per family, on the position with no violation (the
// search that explores the most): distinct states per second of CPU time
// (the process's, so other programs on a shared machine do not count
// against it), and the heap that each stored state keeps, measured when the
// search is near its budget.
//
//	go test -run XX -bench . -benchtime 3x ./demo/find/
func BenchmarkFindLockService(b *testing.B) { benchFind(b, "gc-pause", true) }
func BenchmarkFindRedis(b *testing.B)       { benchFind(b, "no-lease", true) }
func BenchmarkFindRedlock(b *testing.B)     { benchFind(b, "redlock-quorum", true) }
func BenchmarkFindConsensus(b *testing.B)   { benchFind(b, "etcd-lease", true) }
func BenchmarkFindZooKeeper(b *testing.B)   { benchFind(b, "zookeeper-session-expiry", true) }
func BenchmarkFindRecipe(b *testing.B)      { benchFind(b, "zookeeper-recipe", true) }
func BenchmarkFindDatabase(b *testing.B)    { benchFind(b, "deadlock", true) }

const benchStates = 100_000

func benchFind(b *testing.B, id string, on bool) {
	sc, _ := testkit.Catalog(b).Get(id)
	prop, _ := sc.Promise()
	start := demo.Place{Sc: sc, On: on, Step: 1}
	perState := heapPerState(b, start, prop)
	states, cpu := 0, time.Duration(0)
	for b.Loop() {
		before := testkit.CPUTime(b)
		res, err := find.Find(start, prop, find.Options{Depth: 12, MaxStates: benchStates})
		cpu += testkit.CPUTime(b) - before
		if err != nil {
			b.Fatal(err)
		}
		states += res.States
	}
	b.ReportMetric(float64(states)/cpu.Seconds(), "states/cpu-s")
	if perState > 0 {
		b.ReportMetric(perState, "B/state")
	}
}

// heapPerState weighs the heap one search keeps per stored state, near its
// budget or its end (a search that runs out of states to try first, as
// the database's does), in a search of its own: the forced collections
// that weighing takes stay out of the searches that are timed.
func heapPerState(b *testing.B, start demo.Place, prop demo.Property) float64 {
	res, err := find.Find(start, prop, find.Options{Depth: 12, MaxStates: benchStates})
	if err != nil {
		b.Fatal(err)
	}
	near := min(res.States, benchStates)/256 - 1 // the last time Stop is asked
	var before runtime.MemStats
	find.DropKept() // the search makes its own tables, as the first would
	runtime.GC()
	runtime.ReadMemStats(&before)
	calls, perState := 0, 0.0
	measure := func() bool {
		// Stop is asked every 256 states: near the budget or the end,
		// weigh the heap the search keeps.
		if calls++; calls == near {
			var now runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&now)
			perState = float64(now.HeapAlloc-before.HeapAlloc) / float64(calls*256)
		}
		return false
	}
	if _, err := find.Find(start, prop, find.Options{Depth: 12, MaxStates: benchStates, Stop: measure}); err != nil {
		b.Fatal(err)
	}
	return perState
}

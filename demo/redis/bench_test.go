package redis_test

import (
	"testing"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	. "github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/demo/redis/redistest"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// benchRelease plays, as the finder does, one release on a lean copy of a
// run where A holds the lock: the copy, then the action.
func benchRelease(b *testing.B, sc *demo.Scenario, release string) {
	r := demo.NewRun(sc, true)
	r.Step() // A takes the lock
	r.Lean()
	a, err := demo.ParseAction(sc.Family, sc.Store, release)
	if err != nil {
		b.Fatal(err)
	}
	var scratch demo.Run
	b.ReportAllocs()
	for b.Loop() {
		r.CopyTo(&scratch)
		if err := scratch.Free(a); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvalRelease is A's compare-and-delete as a script, through the
// eval verb and the sandbox, as a search tries it; BenchmarkUnlockRelease
// is the same release as the family's built-in unlock, for comparison.
func BenchmarkEvalRelease(b *testing.B) {
	sc := testkit.Scenario(b, "release-other")
	benchRelease(b, sc, "A eval release-checked lock:row-42 $value")
}

func BenchmarkUnlockRelease(b *testing.B) {
	benchRelease(b, testkit.Scenario(b, "release-other"), "A unlock lock:row-42")
}

// benchFind searches release-other, switch on, to depth 8 under
// no-two-holders, and reports the states it explored and how many a
// second of the process's CPU.
func benchFind(b *testing.B, sc *demo.Scenario) {
	prop, _ := sc.Promise()
	states, cpu := 0, time.Duration(0)
	for b.Loop() {
		start := testkit.CPUTime(b)
		res, err := find.Find(demo.Place{Sc: sc, On: true, Step: 1}, prop, find.Options{Depth: 8, MaxStates: 2_000_000})
		cpu += testkit.CPUTime(b) - start
		if err != nil || res.Found || res.OutOfBudget {
			b.Fatalf("%+v %v", res, err)
		}
		states += res.States
	}
	b.ReportMetric(float64(states)/float64(b.N), "states/op")
	b.ReportMetric(float64(states)/cpu.Seconds(), "states/cpu-s")
}

// BenchmarkFindReleaseUnlock searches with the built-in compare-and-delete
// (unlock); BenchmarkFindReleaseEval with the same release as the lab's
// Lua script, through the sandbox: the same states, each release a call.
func BenchmarkFindReleaseUnlock(b *testing.B) {
	benchFind(b, testkit.Scenario(b, "release-other"))
}

func BenchmarkFindReleaseEval(b *testing.B) {
	sc := testkit.Scenario(b, "release-other")
	benchFind(b, redistest.WithEvals(b, sc, func(a demo.Action) string {
		if a.Verb == Unlock {
			return "A eval release-checked lock:row-42 $value"
		}
		return ""
	}))
}

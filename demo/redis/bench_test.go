package redis_test

import (
	"testing"

	"github.com/distlock/fencing-demo/demo"
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

package find_test

import (
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/internal/testkit"
)

func benchFind(b *testing.B, id string, on bool, prop string) {
	sc, _ := testkit.Catalog(b).Get(id)
	p, _ := demo.PropertyNamed(prop)
	states := 0
	for b.Loop() {
		res, err := find.Find(demo.Place{Sc: sc, On: on, Step: 1}, p, find.Options{Depth: 8, MaxStates: 50000})
		if err != nil {
			b.Fatal(err)
		}
		states += res.States
	}
	b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
}

func BenchmarkFindRedis(b *testing.B) { benchFind(b, "no-lease", true, "never-stuck") }

package script_test

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// BenchmarkLoad reads and checks scenarios.yaml as a start does, on all the
// CPUs (the pieces at once) and on one. Beside the wall time it reports the
// process's CPU time per load, which the other work on a shared machine
// moves far less.
//
//	go test -run '^$' -bench Load -benchmem ./demo/script
func BenchmarkLoad(b *testing.B) {
	data, err := os.ReadFile(testkit.ScenariosFile())
	if err != nil {
		b.Fatal(err)
	}
	for _, procs := range []int{runtime.GOMAXPROCS(0), 1} {
		b.Run(map[bool]string{true: "one-cpu", false: "all-cpus"}[procs == 1], func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			b.SetBytes(int64(len(data)))
			cpu := testkit.CPUTime(b)
			for b.Loop() {
				if _, err := script.Load("scenarios.yaml", data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((testkit.CPUTime(b)-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkSave200 saves a free-play history of 200 actions (demo.MaxPlay),
// the longest an address can carry, as a scenario: one play in each
// position, so linear in the history.
//
//	go test -run '^$' -bench Save200 -benchmem ./demo/script
func BenchmarkSave200(b *testing.B) {
	sc := testkit.Scenario(b, "gc-pause")
	cycle := []string{"A acquire 10", "tick 1", "A write A", "tick 1", "A release", "B acquire 10", "tick 1", "B write B", "B release", "tick 1"}
	var acts []string
	for len(acts) < demo.MaxPlay {
		acts = append(acts, cycle...)
	}
	p := demo.Place{Sc: sc, Step: 1, Play: strings.Join(acts, "\n")}
	if _, err := p.Run(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := script.SaveYAML(p); err != nil {
			b.Fatal(err)
		}
	}
}

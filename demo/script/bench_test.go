package script_test

import (
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

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
			cpu := cpuTime(b)
			for b.Loop() {
				if _, err := script.Load("scenarios.yaml", data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime(b)-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the CPU time the process has used so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package testkit

import (
	"syscall"
	"testing"
	"time"
)

// CPUTime is the CPU time the process has used so far, user and system:
// the benchmarks' measure of work, which other programs on a shared
// machine do not count against.
func CPUTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

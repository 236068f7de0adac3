//go:build unix

package web

import "syscall"

// processCPU returns the CPU time this process has used, user and system,
// in seconds; the bench stats route reports it, and the load command divides it by the requests served, a figure
// that other programs on a busy machine do not skew the way they skew
// throughput.
func processCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

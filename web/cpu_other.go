//go:build !unix

package web

// processCPU is not measured on this system.
func processCPU() float64 { return 0 }

//go:build !linux

package web

// lowPriority runs f: only Linux lowers one thread's priority.
func lowPriority(f func()) { f() }

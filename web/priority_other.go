//go:build !linux

package web

import "time"

// lowPriority runs f: only Linux lowers one thread's priority.
func lowPriority(f func()) { f() }

// searchClock measures how long the work has run, by the clock: only
// Linux runs it on a thread of its own whose CPU time can be read.
func searchClock() func() time.Duration { return wallClock() }

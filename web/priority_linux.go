package web

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// lowPriority runs f on an operating-system thread of its own whose
// priority is lowered (nice 10): an expensive answer (a search, a save)
// keeps a core busy for up to a second, and on a machine that is short of
// cores the lecturer's click, on the server's other threads, should not
// wait behind it. The thread ends with f, so no other goroutine ever runs
// at the lowered priority. A panic in f is raised again in the caller.
func lowPriority(f func()) {
	done := make(chan struct{})
	var caught any
	go func() {
		defer func() { caught = recover(); close(done) }()
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		_ = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 10)
		f()
	}()
	<-done
	if caught != nil {
		panic(caught)
	}
}

// searchClock measures how long the work on this thread has run: its CPU
// time, on the thread lowPriority gives it, so that a search's budget is
// the same on a busy machine as on an idle one (at its lower priority it
// may get a core less than half the time); by the clock where the thread's
// time cannot be read.
func searchClock() func() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return wallClock()
	}
	start := ts.Nano()
	return func() time.Duration {
		if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
			return 0
		}
		return time.Duration(ts.Nano() - start)
	}
}

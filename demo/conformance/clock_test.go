package conformance

import "time"

// scale is how much faster than the model the suite runs: one model second
// is 1000/scale ms of real time (200 ms), so a 30 s TTL lasts 6 s on the
// real server. Faster scales flaked on this machine's two shared cores under
// a load of 20, where the suite ran up to a second behind its clock. Every duration a command carries (PX, EXPIRE, the renewal's
// TTL) is divided by scale before it is sent; the model's numbers must divide
// evenly, so nothing is rounded.
const scale = 5

// margin is how close, in model ms, a state check may come to a key's expiry
// before it is left out as too close to call on a busy machine: 5000 model ms
// is 1 s of real time, what a machine whose two cores are shared with
// browser tests was seen to fall behind. A PTTL must agree with the page's
// TTL within it.
const margin = 5000

// pacer maps the model's time onto real time. It is anchored at the reply to
// the last command, never at the request, so between two commands at least
// their model interval (scaled) passes on the server: a key the model says
// has expired has expired on the server too, however late the test runs. A
// late test can only eat into the time left before an expiry, and the
// scenarios keep every command thousands of model ms clear of that.
type pacer struct {
	model int       // model time of the anchor
	real  time.Time // real time of the anchor
	start time.Time
}

func newPacer() *pacer {
	now := time.Now()
	return &pacer{real: now, start: now}
}

// real returns the real duration of d model ms.
func realDuration(d int) time.Duration {
	return time.Duration(d) * time.Millisecond / scale
}

// until waits until model time t has come.
func (p *pacer) until(t int) {
	if t > p.model {
		time.Sleep(time.Until(p.real.Add(realDuration(t - p.model))))
	}
}

// mark anchors model time t at now: call it after a reply arrives.
func (p *pacer) mark(t int) {
	if t >= p.model {
		p.model, p.real = t, time.Now()
	}
}

// late returns how far, in model ms, real time has run ahead of the model
// since the start: the sum of every round trip and every oversleep.
func (p *pacer) late(now int) int {
	return int(time.Since(p.start)*scale/time.Millisecond) - now
}

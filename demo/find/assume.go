package find

import (
	"slices"

	"github.com/distlock/fencing-demo/demo"
)

// Running is what a trace assumes when it needs no pause: the client that
// worked past its lease was running when the lease ran out, so it did not
// renew in time. Renews says whether it has a renewal thread in the
// finder's space (a duty); without one nobody renews its lease in this
// scenario, and its work simply outlasted it, as it would behind a stalled
// renewal thread.
type Running struct {
	Client string // "" for none: the client was paused, or no lease ran out
	At     int    // when its lease ran out
	Renews bool
}

// Running reads, from end, the frame r's trace leads to, whether the client
// that broke the property worked past a lease that ran out while it ran:
// not paused at that moment, by the frame's pauses.
func (r Result) Running(end demo.Frame) Running {
	v := r.Violation
	if !r.Found || v.Client == "" {
		return Running{}
	}
	until := -1
	for _, h := range end.Holdings {
		if h.Client == v.Client && h.From <= v.At && h.Until >= 0 && h.Until <= v.At && (h.Ended < 0 || h.Ended > h.Until) {
			until = h.Until
		}
	}
	if until < 0 {
		return Running{}
	}
	for _, p := range end.Timeline().Pauses {
		if p.Lane == v.Client && p.From <= until && (p.Open || p.To >= until) {
			return Running{} // stopped when it ran out: the texts' pause
		}
	}
	return Running{Client: v.Client, At: until, Renews: slices.Contains(r.Renewers, v.Client)}
}

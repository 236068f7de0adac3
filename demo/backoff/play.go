package backoff

import (
	"math/rand/v2"
	"strconv"

	"github.com/distlock/fencing-demo/demo"
)

// Slot is one slot of the chart: the calls made in hold ms from At, how
// many of them were retries, and how many got the lock.
type Slot struct {
	At      int
	Calls   int
	Retries int
	Won     int
}

// play makes every call due by until, earliest first (the lowest-numbered
// client first when two call in the same millisecond, as a server takes
// the first packet to arrive). A refused client schedules its next call
// by the policy; the calls of one slot are logged as one event.
func (c *crowd) play(r *demo.Run, until int) {
	c.hold(r, until)
	var b *Burst
	for {
		i := c.due(until)
		if i < 0 {
			break
		}
		t := c.callers[i].next
		slot := t / c.policy.Hold
		if b != nil && b.Slot != slot*c.policy.Hold {
			r.Log(*b)
			b = nil
		}
		if b == nil {
			b = &Burst{Head: r.HeadAt(t, "", Lock), Slot: slot * c.policy.Hold, Key: r.Scenario().Resource, Hold: c.policy.Hold}
		}
		c.call(r, i, t, b)
	}
	if b != nil {
		r.Log(*b)
	}
	c.judge(r)
}

// hold keeps the call of a paused or crashed client from being made: it
// stays due, just after the clock's time, until the client runs again.
func (c *crowd) hold(r *demo.Run, until int) {
	for i := range c.callers {
		k := &c.callers[i]
		if cl := r.Client(r.Scenario().Clients[i]); k.calling && (cl.Paused || cl.Crashed) && k.next <= until {
			k.next = until + 1
		}
	}
}

// due is the caller whose call comes first by until, or -1.
func (c *crowd) due(until int) int {
	best := -1
	for i, k := range c.callers {
		if k.calling && k.next <= until && (best < 0 || k.next < c.callers[best].next) {
			best = i
		}
	}
	return best
}

// call plays client i's call at t: SET NX takes the lock when it is free;
// otherwise the client backs off.
func (c *crowd) call(r *demo.Run, i, t int, b *Burst) {
	k := &c.callers[i]
	name := r.Scenario().Clients[i]
	s := c.slot(t)
	s.Calls++
	b.Calls++
	c.calls++
	if k.refused > 0 {
		s.Retries++
		b.Retries++
	}
	if c.freeAt <= t {
		c.freeAt = t + c.policy.Hold
		k.calling, k.got = false, t
		s.Won++
		b.Won = append(b.Won, name)
		if c.done() == len(c.callers) {
			c.finish = t
		}
	} else {
		k.next = t + c.wait(k.refused)
		k.refused++
	}
	b.Waiting = c.waiting()
}

// wait is how long a client refused attempt+1 times sleeps: the capped
// exponential; with jitter a random time below it, or with an additive
// jitter the capped exponential and a random time below the spread.
func (c *crowd) wait(attempt int) int {
	w := c.policy.Cap
	if attempt < 30 {
		w = min(c.policy.Cap, c.policy.Base<<attempt)
	}
	switch {
	case !c.jitter:
		return w
	case c.policy.Plus > 0:
		return w + rand.New(&c.rng).IntN(c.policy.Plus)
	}
	return rand.New(&c.rng).IntN(w)
}

// slot is the chart's slot holding t, grown to reach it.
func (c *crowd) slot(t int) *Slot {
	n := t / c.policy.Hold
	for len(c.slots) <= n {
		c.slots = append(c.slots, Slot{At: len(c.slots) * c.policy.Hold})
	}
	return &c.slots[n]
}

func (c *crowd) done() int {
	n := 0
	for _, k := range c.callers {
		if k.got >= 0 {
			n++
		}
	}
	return n
}

func (c *crowd) waiting() int {
	n := 0
	for _, k := range c.callers {
		if k.calling {
			n++
		}
	}
	return n
}

// busiest is the slot with the most retries, the earliest of equals; its
// Retries is 0 while nobody has retried.
func (c *crowd) busiest() Slot {
	var top Slot
	for _, s := range c.slots {
		if s.Retries > top.Retries {
			top = s
		}
	}
	return top
}

// Herd is the bound the verdict draws: half of the clients or more
// retrying in one slot, where one or two at most get the lock, is a herd.
// Jitter's own chance clumps stay well under it.
func Herd(retries, clients int) bool { return retries*2 >= clients }

// judge is the herd's verdict as the frame stands: the busiest slot of
// retries, the calls so far, how many have the lock and, once all do, when
// the last got it. One finding, kept up to date as the clock moves.
func (c *crowd) judge(r *demo.Run) {
	top := c.busiest()
	if top.Retries == 0 {
		return
	}
	v := demo.Violation{Kind: Spread, At: top.At, Token: int64(top.Retries), Max: int64(c.calls), Value: strconv.Itoa(c.done())}
	if Herd(top.Retries, len(c.callers)) {
		v.Kind = ThunderingHerd
	}
	if c.finish >= 0 {
		v.Before = strconv.Itoa(c.finish)
	}
	if !r.Amend(func(w *demo.Violation) bool {
		if w.Kind != Spread && w.Kind != ThunderingHerd {
			return false
		}
		v.Frame = w.Frame
		*w = v
		return true
	}) {
		r.Violate(v)
	}
}

// Package truth holds a sentence's claims to its frame. It is an account of
// the model written apart from the code that words the page: it reads only
// what the frame records (each client's state, every hold on the lock by
// its holder's reckoning, every event) and works out each fact again, so
// that a sentence is checked by a second reading of the model, never by the
// reasoning that wrote it. The tests walk every frame a learner can reach
// and hold every sentence's claims to it (views' truth test).
package truth

import (
	"fmt"

	"github.com/distlock/fencing-demo/demo"
)

// Check returns nil when c holds in f, else what is wrong.
func Check(f *demo.Frame, c demo.Claim) error {
	a := account{f: f}
	ok, why := a.holds(c)
	if ok {
		return nil
	}
	return fmt.Errorf("%s %s: %s", c.Fact, describe(c), why)
}

func describe(c demo.Claim) string {
	s := c.Client
	if c.Other != "" {
		s += "/" + c.Other
	}
	if c.Value != "" {
		s += fmt.Sprintf(" %q", c.Value)
	}
	if c.Token != 0 {
		s += fmt.Sprintf(" token %d", c.Token)
	}
	return s + fmt.Sprintf(" at %d", c.At)
}

// account is the frame read once more, fact by fact.
type account struct{ f *demo.Frame }

func (a account) holds(c demo.Claim) (bool, string) {
	switch c.Fact {
	case demo.Believes:
		return a.believed(c.Client, c.At), "it did not believe it held the lock then"
	case demo.BelievesNot:
		return a.doubted(c.Client, c.At), "it believed it held the lock then"
	case demo.HoldsValid:
		return a.valid(c.Client, c.At), "it did not hold the lock within a lease then"
	case demo.LeaseOver:
		return a.leaseOver(c.Client, c.At), "its lease had not run out by then"
	case demo.IsPaused:
		cl := a.client(c.Client)
		return cl != nil && cl.Paused, "it is not paused"
	case demo.Dead:
		cl := a.client(c.Client)
		return cl != nil && cl.Crashed, "it has not crashed"
	case demo.TokenGiven:
		return a.given(c.Client, c.Token), "it was never given that token"
	case demo.BothValid:
		return a.valid(c.Client, c.At) && a.valid(c.Other, c.At), "the two did not both hold the lock within their leases then"
	}
	return a.writes(c)
}

// writes holds the claims about writes to the resource. A client may
// write more than once in one instant: a claim about its write at t holds
// if one of them bears it out.
func (a account) writes(c demo.Claim) (bool, string) {
	switch c.Fact {
	case demo.NoneLanded:
		for _, e := range a.taken() {
			if e.Client == c.Client && e.At >= c.At {
				return false, fmt.Sprintf("its write %q was taken at %d", e.Value, e.At)
			}
		}
		return true, ""
	case demo.FencedOff:
		for _, r := range a.all() {
			if !r.OK && r.Client == c.Client && r.Token == c.Token && (c.At < 0 || r.At == c.At) && r.Max > r.Token {
				return true, ""
			}
		}
		return false, "no such write was turned away by a higher token"
	}
	why := "no such write was taken then"
	for _, w := range a.taken() {
		if w.Client != c.Client || w.At != c.At {
			continue
		}
		ok, because := a.write(c, w)
		if ok {
			return true, ""
		}
		why = because
	}
	return false, why
}

// write holds a claim about one write the resource took.
func (a account) write(c demo.Claim, w demo.WriteResult) (bool, string) {
	switch c.Fact {
	case demo.Landed:
		return w.Value == c.Value, "it wrote another value"
	case demo.Overwrote:
		return w.Before == c.Value && a.writerOf(w) == c.Other, a.overwroteWhy(w)
	case demo.Destroyed:
		if w.Before != c.Value || a.writerOf(w) != c.Other || c.Value == "" {
			return false, a.overwroteWhy(w)
		}
		return a.newer(c.Other, c.Client, c.At), c.Other + " held no lock newer than " + c.Client + "'s"
	case demo.NothingNewerLost:
		return w.Before == "" || !a.newer(a.writerOf(w), c.Client, c.At), "the write replaced a newer holder's data"
	case demo.NotYetSeen:
		if w.Max > c.Token {
			return false, "the resource had seen a higher token"
		}
		return c.Other == "" || a.tokenAbove(c.Other, c.Token, c.At), c.Other + " held no higher token then"
	}
	return false, "a fact this account does not know"
}

func (a account) overwroteWhy(w demo.WriteResult) string {
	return fmt.Sprintf("the write replaced %q, written by %q", w.Before, a.writerOf(w))
}

// client is the frame's client named name.
func (a account) client(name string) *demo.Client {
	for i := range a.f.Clients {
		if a.f.Clients[i].Name == name {
			return &a.f.Clients[i]
		}
	}
	return nil
}

// Several things may happen at one instant, in an order the holds do not
// keep: a hold that ended at t was still believed earlier in t, when a
// sentence about t may have been true. So a claim about a moment counts a
// hold as believed at the instant it ended; a claim about the frame as it
// stands (demo.Currently) reads the client's belief as the frame leaves it.

// believed: a hold of client's that it believed in at t.
func (a account) believed(client string, t int) bool {
	if t == demo.Currently {
		c := a.client(client)
		return c != nil && c.Holds
	}
	for _, h := range a.f.Holdings {
		if h.Client == client && h.From <= t && (h.Ended < 0 || t <= h.Ended) {
			return true
		}
	}
	return false
}

// doubted: a point in instant t at which client did not believe it held
// the lock: no hold of its began before t and lasted past it.
func (a account) doubted(client string, t int) bool {
	if t == demo.Currently {
		return !a.believed(client, t)
	}
	for _, h := range a.f.Holdings {
		if h.Client == client && h.From < t && (h.Ended < 0 || h.Ended > t) {
			return false
		}
	}
	return true
}

// valid: a hold of client's believed at t, with a lease not yet over.
func (a account) valid(client string, t int) bool {
	if t == demo.Currently {
		return a.believed(client, t) && a.valid(client, a.f.Now)
	}
	for _, h := range a.f.Holdings {
		if h.Client == client && h.From <= t && (h.Ended < 0 || t <= h.Ended) && (h.Until < 0 || t < h.Until) {
			return true
		}
	}
	return false
}

// leaseOver: at a point in instant t, a hold client believed in had a lease
// that had run out (it may take the lock anew in the same instant).
func (a account) leaseOver(client string, t int) bool {
	for _, h := range a.f.Holdings {
		if h.Client == client && h.From <= t && (h.Ended < 0 || t <= h.Ended) && h.Until >= 0 && h.Until <= t {
			return true
		}
	}
	return false
}

// newer: other began a hold after client's last hold began, by t.
func (a account) newer(other, client string, t int) bool {
	mine := -1
	for _, h := range a.f.Holdings {
		if h.Client == client && h.From <= t {
			mine = max(mine, h.From)
		}
	}
	for _, h := range a.f.Holdings {
		if h.Client == other && h.From > mine && h.From <= t {
			return true
		}
	}
	return false
}

func (a account) given(client string, token int64) bool {
	for _, h := range a.f.Holdings {
		if h.Client == client && h.Token == token {
			return true
		}
	}
	return false
}

// tokenAbove: other held a token above token by t.
func (a account) tokenAbove(other string, token int64, t int) bool {
	for _, h := range a.f.Holdings {
		if h.Client == other && h.Token > token && h.From <= t {
			return true
		}
	}
	return false
}

// all are the writes that reached the resource, taken or turned away, in
// order: the engine's and a family's (demo.ResourceWrite).
func (a account) all() []demo.WriteResult {
	var out []demo.WriteResult
	for _, e := range a.f.Events {
		switch e := e.(type) {
		case demo.WriteResult:
			out = append(out, e)
		case demo.ResourceWrite:
			if w, ok := e.Written(); ok {
				out = append(out, w)
			}
		}
	}
	return out
}

// taken are the writes the resource took, in order.
func (a account) taken() []demo.WriteResult {
	var out []demo.WriteResult
	for _, w := range a.all() {
		if w.OK {
			out = append(out, w)
		}
	}
	return out
}

// writerOf is who wrote the value w replaced: the writer of the last write
// taken before w whose value it is; "" when no taken write left it.
func (a account) writerOf(w demo.WriteResult) string {
	writer := ""
	for _, e := range a.taken() {
		if e == w {
			break
		}
		if e.Value == w.Before {
			writer = e.Client
		} else {
			writer = ""
		}
	}
	return writer
}

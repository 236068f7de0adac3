package demo

// Violation is something the lock let happen, found by the model as it
// plays: the evidence a verdict shows. Not every violation breaks the lock:
// an overlap that the resource contained is the chapter's point, not a bug.
type Violation struct {
	Kind   ViolationKind
	Frame  int
	At     int
	Client string // the second holder, the expired or stale writer, or the dead holder
	Other  string // the first holder, the valid holder, or whose value was overwritten
	Value  string // a stale write: what it wrote
	Before string // a stale write: the value it destroyed
	Token  int64  // contained: the token of the write the resource turned away
	Max    int64  // contained: the resource's maxToken then
}

// Hold starts c's holding now, valid until until (-1: no expiry), and
// checks it against everyone else's.
func (r *Run) Hold(c *Client, until int) {
	r.endHold(c)
	c.Holds, c.Until = true, until
	r.checkToken(c)
	r.holdings = append(r.holdings, Holding{Client: c.Name, Token: c.Token, From: r.now, Until: until, Ended: -1})
	r.checkOverlap()
}

// ExtendHold moves the end of c's current holding: a renewal.
func (r *Run) ExtendHold(c *Client, until int) {
	c.Until = until
	for i := range r.holdings {
		if h := &r.holdings[i]; h.Client == c.Name && h.Ended < 0 {
			h.Until = until
		}
	}
}

// endHold closes c's current holding now.
func (r *Run) endHold(c *Client) {
	for i := range r.holdings {
		if h := &r.holdings[i]; h.Client == c.Name && h.Ended < 0 {
			h.Ended = r.now
		}
	}
}

// LetGo is a client giving up its belief: it released, or it learned that the
// lock is no longer its own.
func (r *Run) LetGo(c *Client) {
	r.endHold(c)
	c.Holds, c.Until = false, -1
}

// believedAt reports whether h's client believed it held the lock at t.
func (h Holding) believedAt(t int) bool { return h.From <= t && (h.Ended < 0 || t < h.Ended) }

// checkOverlap compares every pair of holdings of different clients whose
// beliefs meet. At the first moment both believe, either both are within
// their lease (the lock was granted twice) or one had already run out and
// works on regardless (an overlap). Each pair is recorded once.
func (r *Run) checkOverlap() {
	for i, g := range r.holdings {
		for _, h := range r.holdings[i+1:] {
			if g.Client == h.Client {
				continue
			}
			t := max(g.From, h.From)
			if !g.believedAt(t) || !h.believedAt(t) || r.recorded(g, h) {
				continue
			}
			switch gv, hv := g.validAt(t), h.validAt(t); {
			case gv && hv:
				r.Violate(Violation{Kind: TwoHolders, At: t, Client: h.Client, Other: g.Client})
			case gv:
				r.Violate(Violation{Kind: Overlap, At: t, Client: h.Client, Other: g.Client})
			case hv:
				r.Violate(Violation{Kind: Overlap, At: t, Client: g.Client, Other: h.Client})
			}
		}
	}
}

// recorded reports whether the pair of holdings g, h already has its
// violation: the one found at the moment both began to believe.
func (r *Run) recorded(g, h Holding) bool {
	t := max(g.From, h.From)
	for _, v := range r.violations {
		if v.At != t {
			continue
		}
		switch v.Kind {
		case TwoHolders, Overlap, Contained:
			if v.Client == g.Client && v.Other == h.Client || v.Client == h.Client && v.Other == g.Client {
				return true
			}
		}
	}
	return false
}

// JudgeWrite is called after the resource (or a store that checks tokens
// itself) answered c's write. A write from a client whose lock had run out
// that the resource took is a stale write when it overwrote the data of a
// holder newer than the writer: the chapter's harm. Over nobody's data, its
// own, or an older holder's, it destroyed nothing yet: the writer worked
// past its lease (a late write). A write the resource turned away shows
// that it contained c's overlap with the holder that fenced it off. other
// is whose value the write replaced; "" looks it up among the resource's
// writes.
func (r *Run) JudgeWrite(c *Client, w WriteResult, other string) {
	mine := -1 // when c's last hold on the lock began
	for _, h := range r.holdings {
		if h.Client != c.Name {
			continue
		}
		if h.validAt(r.now) {
			return
		}
		mine = max(mine, h.From)
	}
	if w.OK {
		if other == "" {
			other = r.lastWriter(c.Name)
		}
		v := Violation{Kind: LateWrite, At: r.now, Client: c.Name, Value: w.Value, Before: w.Before, Other: other, Token: w.Token, Max: w.Max}
		if w.Before != "" && r.heldSince(other, mine) {
			v.Kind = StaleWrite
		}
		r.Violate(v)
		return
	}
	for i := range r.violations {
		if v := &r.violations[i]; v.Kind == Overlap && v.Client == c.Name && v.At <= r.now {
			v.Kind, v.Token, v.Max = Contained, w.Token, w.Max
		}
	}
}

// heldSince reports whether client took the lock after from and by now:
// a holder newer than one whose hold began at from.
func (r *Run) heldSince(client string, from int) bool {
	for _, h := range r.holdings {
		if h.Client == client && h.From > from && h.From <= r.now {
			return true
		}
	}
	return false
}

// lastWriter returns who wrote the resource last before client's write.
func (r *Run) lastWriter(client string) string {
	seen := false
	for i := len(r.events) - 1; i >= 0; i-- {
		w, ok := r.events[i].(WriteResult)
		if !ok || !w.OK {
			continue
		}
		if !seen && w.Client == client {
			seen = true
			continue
		}
		return w.Client
	}
	return ""
}

// checkStuck looks, at the end of each move, for a lock that never expires
// and belongs to a client that is dead.
func (r *Run) checkStuck() {
	for _, v := range r.violations {
		if v.Kind == Stuck {
			return
		}
	}
	if dead := r.store.Forever(r); dead != "" {
		r.Violate(Violation{Kind: Stuck, At: r.now, Client: dead})
	}
}

// Amend offers each violation found so far to change, in order, until
// change says it found the one it wanted (and perhaps changed it): a store
// that learns more of a violation later, such as a deadlock the detector
// broke. It reports whether change found one.
func (r *Run) Amend(change func(v *Violation) bool) bool {
	for i := range r.violations {
		if change(&r.violations[i]) {
			return true
		}
	}
	return false
}

// Violate records v in the current frame.
func (r *Run) Violate(v Violation) {
	v.Frame = r.frame
	r.violations = append(r.violations, v)
}

// StaleNow reports whether client's write at at was already judged a stale
// or late write: one write, one verdict, the chapter's.
func (r *Run) StaleNow(client string, at int) bool {
	for _, v := range r.violations {
		if (v.Kind == StaleWrite || v.Kind == LateWrite) && v.Client == client && v.At == at {
			return true
		}
	}
	return false
}

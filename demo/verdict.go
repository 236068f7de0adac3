package demo

// Violation is a broken promise of the lock, found by the model as it plays:
// the evidence a verdict shows.
type Violation struct {
	Kind   ViolationKind
	Frame  int
	At     int
	Client string // the second holder, the stale writer, or the dead holder
	Other  string // the first holder, or the holder whose value was overwritten
	Value  string // a stale write: what it wrote
	Before string // a stale write: the value it destroyed
}

// ViolationKind names what went wrong.
type ViolationKind uint8

const (
	// TwoHolders: two clients held the lock at once, each within its own
	// lease or validity. Mutual exclusion is gone.
	TwoHolders ViolationKind = iota + 1
	// StaleWrite: a client whose lease had run out wrote, and the resource
	// took it. Someone else's data was overwritten.
	StaleWrite
	// HeldForever: a dead client holds a lock that never expires. Nobody
	// can ever take it again.
	HeldForever
)

func (k ViolationKind) String() string {
	switch k {
	case TwoHolders:
		return "two-holders"
	case StaleWrite:
		return "stale-write"
	case HeldForever:
		return "held-forever"
	}
	if s, ok := sqlViolationNames[k]; ok {
		return s
	}
	return "safe"
}

// hold starts c's holding now, valid until until (-1: no expiry), and
// checks it against everyone else's.
func (r *Run) hold(c *Client, until int) {
	r.endHold(c)
	c.Holds, c.Until = true, until
	h := Holding{Client: c.Name, From: r.now, Until: until, Ended: -1}
	for _, g := range r.holdings {
		if g.Client != c.Name && g.validAt(r.now) {
			r.violate(Violation{Kind: TwoHolders, At: r.now, Client: c.Name, Other: g.Client})
			break
		}
	}
	r.holdings = append(r.holdings, h)
}

// extendHold moves the end of c's current holding: a renewal.
func (r *Run) extendHold(c *Client, until int) {
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

// letGo is a client giving up its belief: it released, or it learned that the
// lock is no longer its own.
func (r *Run) letGo(c *Client) {
	r.endHold(c)
	c.Holds, c.Until = false, -1
}

// checkWrite is called after the resource accepted c's write: if c's lock had
// run out by then, that write may have destroyed a newer holder's data.
func (r *Run) checkWrite(c *Client, before string) {
	for _, h := range r.holdings {
		if h.Client == c.Name && h.validAt(r.now) {
			return
		}
	}
	r.violate(Violation{Kind: StaleWrite, At: r.now, Client: c.Name, Value: r.res.Data(), Before: before, Other: r.lastWriter(c.Name)})
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
		if v.Kind == HeldForever {
			return
		}
	}
	if dead := r.store.forever(r); dead != "" {
		r.violate(Violation{Kind: HeldForever, At: r.now, Client: dead})
	}
}

func (r *Run) violate(v Violation) {
	v.Frame = r.frame
	r.violations = append(r.violations, v)
}

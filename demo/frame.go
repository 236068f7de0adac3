package demo

import "slices"

// Frame is everything one frame of a run shows: the narration, the store, the
// resource, each client's belief, what happened so far and the verdict. It is
// a copy, safe to keep after the run moves on.
type Frame struct {
	Scenario *Scenario
	On       bool // the switch's position
	Index    int  // from 1
	Total    int
	Narration

	Now int
	Was int // the time when the move that led here began: the frame before's Now

	// The lock service, for scenarios that use it.
	Holder string // "" when free
	Token  int64  // the holder's token; 0 when free
	Expiry int    // when the current (or last) lease runs out

	// The Redis nodes, for the Redis family.
	Nodes []NodeState

	// The database, for scenarios that use one.
	Database *DatabaseState
	// The consensus service, for the zookeeper, etcd and consul stores.
	Coord *CoordState

	Fenced   bool
	Data     string
	MaxToken int64
	Rejected int
	Writes   int

	Clients    []Client
	Events     []Event     // every event up to this frame, in order
	Holdings   []Holding   // every hold on the lock so far, by the holders' reckoning
	Violations []Violation // every broken promise so far, in order
}

// NodeState is one Redis node as the frame shows it.
type NodeState struct {
	Name     string
	Role     string
	Up       bool
	Offset   int // ms the wall clock runs ahead of true time
	Slew     int // ms of clock correction still to be slewed in; 0 when none
	SlewRate int // ppm: the most the slew changes the clock's rate
	Keys     []KeyState
}

// KeyState is one key on a node.
type KeyState struct {
	Key, Value string
	Owner      string // the client whose random value (or Redisson field) it is
	TTL        int    // ms left; -1: it never expires
	// Count is a Redisson lock's hold count: the key is then a hash whose
	// one field, Value, is the holder's id; 0 for a plain string key.
	Count int
}

// Last reports whether this is the scenario's last frame.
func (f *Frame) Last() bool { return f.Index == f.Total }

// Verdict returns the violation the frame's verdict leads with: the heaviest
// found so far, or the zero Violation (MutualExclusionHeld) when there is
// none. Its Kind.Class says how bad it is.
func (f *Frame) Verdict() Violation { return Headline(f.Violations) }

// Latest returns the events of the move that led to this frame.
func (f *Frame) Latest() []Event {
	for i, e := range f.Events {
		if e.Header().Frame == f.Index {
			return f.Events[i:]
		}
	}
	return nil
}

// Frame returns the run's current frame.
func (r *Run) Frame() Frame {
	f := Frame{
		Scenario:   r.sc,
		On:         r.on,
		Index:      r.frame,
		Total:      r.sc.Frames(),
		Now:        r.now,
		Was:        r.was,
		Fenced:     r.res.Fenced(),
		Data:       r.res.Data(),
		MaxToken:   r.res.MaxToken(),
		Rejected:   r.res.Rejected,
		Writes:     r.res.Writes(),
		Clients:    slices.Clone(r.clients),
		Events:     slices.Clone(r.events),
		Holdings:   slices.Clone(r.holdings),
		Violations: slices.Clone(r.violations),
	}
	r.store.show(r, &f)
	if r.frame == 1 {
		f.Narration = r.sc.Initial
	} else {
		f.Narration = r.sc.Moves[r.frame-2].narration(r.on)
	}
	return f
}

// Span is a stretch of time on one lane: a client's hold on the lock or its
// pause, or a lock key (or the lock service's lease) on a store. Open spans
// have not ended by the frame's time; To is then the frame's time.
type Span struct {
	Lane  string // the client, the node, or "" for the lock service
	Owner string // whose lock it is
	From  int
	To    int
	Open  bool
	Token int64 // the lock service's token
	Until int   // when it runs out by the holder's reckoning (may lie past To); -1 never
}

// Timeline is the space-time diagram of a frame, in model terms: who held the
// lock when by their own reckoning, where the lock actually was, who was
// paused, and each write with its outcome. Where these land on screen is the
// view's business.
type Timeline struct {
	Now     int
	Holds   []Span
	Locks   []Span // on the store lanes: the lock service's lease, or a node's key
	Pauses  []Span
	Waits   []Span // a statement waiting for a lock (database)
	Writes  []WriteResult
	Marks   []Event // store and client happenings worth a mark: expiries, crashes, nodes going down, clock jumps
	Verdict []Violation
}

// Timeline derives the diagram from the frame.
func (f *Frame) Timeline() Timeline {
	t := Timeline{Now: f.Now, Verdict: f.Violations}
	for _, h := range f.Holdings {
		s := Span{Lane: h.Client, Owner: h.Client, From: h.From, To: f.Now, Open: true, Until: h.Until}
		end := -1
		if h.Until >= 0 && h.Until <= f.Now {
			end = h.Until
		}
		if h.Ended >= 0 && (end < 0 || h.Ended < end) {
			end = h.Ended
		}
		if end >= 0 {
			s.To, s.Open = end, false
		}
		t.Holds = append(t.Holds, s)
	}

	open := map[[2]string]int{} // (lane, owner) -> index in t.Locks
	start := func(lane, owner string, at int, token int64, until int) {
		if _, ok := open[[2]string{lane, owner}]; ok {
			return
		}
		open[[2]string{lane, owner}] = len(t.Locks)
		t.Locks = append(t.Locks, Span{Lane: lane, Owner: owner, From: at, Open: true, Token: token, Until: until})
	}
	stop := func(lane, owner string, at int) {
		for k, i := range open {
			if k[0] == lane && (owner == "" || k[1] == owner) {
				t.Locks[i].To, t.Locks[i].Open = at, false
				delete(open, k)
			}
		}
	}
	pause := map[string]int{}
	for _, e := range f.Events {
		h := e.Header()
		switch e := e.(type) {
		case AcquireCall:
			if e.OK {
				start("", e.Client, e.At, e.Token, e.Expiry)
			}
		case ReleaseCall:
			if e.Held {
				stop("", e.Client, e.At)
			}
		case LeaseExpiry:
			stop("", e.Client, e.At)
			t.Marks = append(t.Marks, e)
		case SetCommand:
			if e.OK {
				stop(e.Node, "", e.At) // a SET without NX replaces whoever's key it was
				start(e.Node, e.Client, e.At, 0, e.Expiry)
			}
		case SetNXCommand:
			if e.OK {
				stop(e.Node, "", e.At)
				start(e.Node, e.Client, e.At, 0, -1)
			}
		case DelCommand:
			if e.OK {
				stop(e.Node, "", e.At)
			}
		case UnlockScript:
			if e.OK {
				stop(e.Node, "", e.At)
			}
		case KeyExpiry:
			stop(e.Node, e.Client, e.At)
			t.Marks = append(t.Marks, e)
		case Replication:
			for k := range open {
				if k[0] == e.Node {
					for _, n := range f.Scenario.NodeNames() {
						if n != e.Node {
							start(n, k[1], e.At, 0, -1)
						}
					}
				}
			}
		case ClockJumped:
			t.Marks = append(t.Marks, e)
		case LockHeld:
			start("", e.Client, e.At, e.Token, -1)
		case CoordCall:
			if e.Op == OpDelete && e.OK || e.Op == OpRelease && e.OK {
				stop("", e.Client, e.At)
			}
		case SessionEnded:
			stop("", e.Client, e.At)
			t.Marks = append(t.Marks, e)
		case WriteResult:
			t.Writes = append(t.Writes, e)
		case NodeChange:
			switch e.What {
			case NodeDown:
				stop(e.Node, "", e.At)
				t.Marks = append(t.Marks, e)
			case Promoted:
				t.Marks = append(t.Marks, e)
			}
		case ClientChange:
			switch e.What {
			case Crashed:
				t.Marks = append(t.Marks, e)
			case Paused:
				pause[h.Client] = len(t.Pauses)
				t.Pauses = append(t.Pauses, Span{Lane: h.Client, Owner: h.Client, From: h.At, Open: true})
			case Resumed:
				if i, ok := pause[h.Client]; ok {
					t.Pauses[i].To, t.Pauses[i].Open = h.At, false
					delete(pause, h.Client)
				}
			}
		}
	}
	if db := f.Database; db != nil {
		// What each connection actually held, beside what clients believed.
		t.Locks = append(t.Locks, db.Holds...)
		t.Waits = append(t.Waits, db.Waits...)
	}
	for _, spans := range [][]Span{t.Locks, t.Pauses, t.Waits} {
		for i := range spans {
			if spans[i].Open {
				spans[i].To = f.Now
			}
		}
	}
	return t
}

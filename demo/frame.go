package demo

import "slices"

// Frame is everything one frame of a run shows: the narration, the store, the
// resource, each client's belief, what happened so far and the verdict. It is
// a copy, safe to keep after the run moves on.
type Frame struct {
	Scenario *Scenario
	On       bool // the switch's position
	Index    int  // from 1
	Total    int  // the scenario's frames; in free play, the latest frame's index
	Free     int  // free-play actions played to get here; 0 for a scripted frame
	Narration

	Now int
	Was int // the time when the move that led here began: the frame before's Now

	// Store is the store's state, of its family's type (Store.State): the
	// lock service's holder and lease, the Redis nodes' keys, the znodes,
	// the database's connections and rows.
	Store any

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

// Last reports whether this is the scenario's last scripted frame: where
// its lesson is shown. A free-play frame never is, as the lesson was written
// for the script's ending and the visitor's may differ.
func (f *Frame) Last() bool { return f.Free == 0 && f.Index == f.Total }

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

// Latest returns the events of the move that led to the run's frame,
// without copying the frame: a loader's check of every move reads only
// these.
func (r *Run) Latest() []Event {
	for i, e := range r.events {
		if e.Header().Frame == r.frame {
			return r.events[i:]
		}
	}
	return nil
}

// Narration returns the narration of the run's frame; a free-play frame's
// is made from its action.
func (r *Run) Narration() Narration {
	if r.base > 0 && r.frame > r.base {
		return FreeNarration(r.sc, r.free[r.frame-r.base-1])
	}
	if r.frame == 1 {
		return r.sc.Initial
	}
	return r.sc.Moves[r.frame-2].narration(r.on)
}

// Frame returns the run's current frame.
func (r *Run) Frame() Frame {
	f := Frame{
		Scenario:   r.sc,
		On:         r.on,
		Index:      r.frame,
		Total:      r.sc.Frames(),
		Free:       len(r.free),
		Now:        r.now,
		Was:        r.was,
		Store:      r.store.State(r),
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
	if f.Free > 0 {
		f.Total = f.Index
	}
	f.Narration = r.Narration()
	return f
}

// Span is a stretch of time on one lane: a client's hold on the lock or its
// pause, or a lock key (or the lock service's lease) on a store. Open spans
// have not ended by the frame's time; To is then the frame's time.
type Span struct {
	Lane  string // the client, the node, or "" for a service with no nodes
	Owner string // whose lock it is
	From  int
	To    int
	Open  bool
	Token int64 // the token the holder was given with the lock; 0 for none
	Until int   // when it runs out by the holder's reckoning (may lie past To); -1 never
}

// Mark is a moment worth a glyph on a lane: an expiry, a crash, a node
// going down, a clock jump, a statement's answer. What names it for the
// view ("expiry", the lease's end with its time; "key-expiry"; "jump", By
// ms; "down"; "promoted"; "crash"; "statement", with Label the answer's
// command tag as the server sends it).
type Mark struct {
	Lane  string
	At    int
	What  string
	By    int
	Label string // words of the server's own, shown as they are
}

// Timeline is the space-time diagram of a frame, in model terms: who held the
// lock when by their own reckoning, where the lock actually was, who was
// paused, and each write with its outcome. Where these land on screen is the
// view's business.
type Timeline struct {
	Now     int
	Lanes   []Lane // the store's lanes, from its family
	Holds   []Span
	Locks   []Span // on the store lanes: the lock service's lease, or a node's key
	Pauses  []Span
	Waits   []Span // a statement waiting for a lock (database)
	Writes  []WriteResult
	Marks   []Mark
	Verdict []Violation
}

// Drawn is an event that changes the store's lanes of the diagram: a lock
// taken or lost on a node, a lease that ran out. Each family's events say
// so themselves.
type Drawn interface{ Draw(d *Drawing) }

// Spanned is a store state that draws spans of its own beside its events'
// (a database's row locks and waits, as pg_locks has them).
type Spanned interface{ Spans() (locks, waits []Span) }

// Drawing is the timeline being drawn from a frame's events.
type Drawing struct {
	Sc   *Scenario
	t    *Timeline
	open map[[2]string]int // (lane, owner) -> index in t.Locks
}

// Start opens owner's span on lane at at, unless one is open.
func (d *Drawing) Start(lane, owner string, at int, token int64, until int) {
	k := [2]string{lane, owner}
	if _, ok := d.open[k]; ok {
		return
	}
	d.open[k] = len(d.t.Locks)
	d.t.Locks = append(d.t.Locks, Span{Lane: lane, Owner: owner, From: at, Open: true, Token: token, Until: until})
}

// Stop closes owner's open span on lane at at; owner "" closes every one.
func (d *Drawing) Stop(lane, owner string, at int) {
	for k, i := range d.open {
		if k[0] == lane && (owner == "" || k[1] == owner) {
			d.t.Locks[i].To, d.t.Locks[i].Open = at, false
			delete(d.open, k)
		}
	}
}

// Owners returns whose spans are open on lane.
func (d *Drawing) Owners(lane string) []string {
	var owners []string
	for k := range d.open {
		if k[0] == lane {
			owners = append(owners, k[1])
		}
	}
	slices.Sort(owners)
	return owners
}

// Mark adds a mark.
func (d *Drawing) Mark(m Mark) { d.t.Marks = append(d.t.Marks, m) }

// Timeline derives the diagram from the frame.
func (f *Frame) Timeline() Timeline {
	t := Timeline{Now: f.Now, Verdict: f.Violations, Holds: f.holds()}
	if lanes := f.Scenario.Family.Lanes; lanes != nil {
		t.Lanes = lanes(f.Scenario)
	}
	d := &Drawing{Sc: f.Scenario, t: &t, open: map[[2]string]int{}}
	pause := map[string]int{}
	for _, e := range f.Events {
		h := e.Header()
		switch e := e.(type) {
		case WriteResult:
			t.Writes = append(t.Writes, e)
		case ClientChange:
			switch e.What {
			case Crashed:
				d.Mark(Mark{Lane: h.Client, At: h.At, What: "crash"})
				fallthrough // a pause ends with the process
			case Resumed:
				if i, ok := pause[h.Client]; ok {
					t.Pauses[i].To, t.Pauses[i].Open = h.At, false
					delete(pause, h.Client)
				}
			case Paused:
				pause[h.Client] = len(t.Pauses)
				t.Pauses = append(t.Pauses, Span{Lane: h.Client, Owner: h.Client, From: h.At, Open: true})
			}
		case Drawn:
			e.Draw(d)
		}
	}
	if s, ok := f.Store.(Spanned); ok {
		// What each connection actually held, beside what clients believed.
		locks, waits := s.Spans()
		t.Locks = append(t.Locks, locks...)
		t.Waits = append(t.Waits, waits...)
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

// holds are the clients' holds on the lock, by their own reckoning.
func (f *Frame) holds() []Span {
	var spans []Span
	for _, h := range f.Holdings {
		s := Span{Lane: h.Client, Owner: h.Client, From: h.From, To: f.Now, Open: true, Token: h.Token, Until: h.Until}
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
		spans = append(spans, s)
	}
	return spans
}

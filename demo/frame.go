package demo

// Frame is everything one frame of a run shows: the narration, the lock
// service, the resource, each client's belief, and what happened so far. It is
// a copy, safe to keep after the run moves on.
type Frame struct {
	Scenario *Scenario
	On       bool // the switch's position
	Index    int  // from 1
	Total    int
	Narration

	Now      int
	Holder   string // "" when free
	Token    int64  // the holder's token; 0 when free
	Expiry   int    // when the current (or last) lease runs out
	Fenced   bool
	Data     string
	MaxToken int64
	Rejected int
	Writes   int

	Clients []Client
	Events  []Event // every event up to this frame, in order
}

// Last reports whether this is the scenario's last frame.
func (f *Frame) Last() bool { return f.Index == f.Total }

// Latest returns the events of the move that led to this frame.
func (f *Frame) Latest() []Event {
	for i, e := range f.Events {
		if e.Frame == f.Index {
			return f.Events[i:]
		}
	}
	return nil
}

// Frame returns the run's current frame.
func (r *Run) Frame() Frame {
	f := Frame{
		Scenario: r.sc,
		On:       r.on,
		Index:    r.frame,
		Total:    r.sc.Frames(),
		Now:      r.svc.Now(),
		Expiry:   r.svc.Expiry(),
		Fenced:   r.res.Fenced(),
		Data:     r.res.Data(),
		MaxToken: r.res.MaxToken(),
		Rejected: r.res.Rejected,
		Writes:   r.res.Writes(),
		Clients:  append([]Client(nil), r.clients...),
		Events:   append([]Event(nil), r.events...),
	}
	f.Holder, f.Token = r.svc.Holder()
	if r.frame == 1 {
		f.Narration = r.sc.Initial
	} else {
		f.Narration = r.sc.Moves[r.frame-2].Narration
	}
	return f
}

// Span is a stretch of time on one client's lane: a lease or a pause. Open
// spans have not ended by the frame's time; To is then the frame's time.
type Span struct {
	Client string
	From   int
	To     int
	Open   bool
	Token  int64 // for a lease: its token
	Until  int   // for a lease: when it runs out (may lie past To)
}

// Timeline is the space-time diagram of a frame, in model terms: who held a
// lease when, who was paused, and each write with its outcome. Where these
// land on screen is the view's business.
type Timeline struct {
	Now    int
	End    int // the latest time worth drawing: now, or a lease's expiry past it
	Leases []Span
	Pauses []Span
	Writes []Event
	Expiry []Event // leases that ran out
}

// Timeline derives the diagram's spans from the frame's events.
func (f *Frame) Timeline() Timeline {
	t := Timeline{Now: f.Now, End: f.Now}
	lease := map[string]int{} // client -> index in t.Leases of its open lease
	pause := map[string]int{}
	closeLease := func(client string, at int) {
		if i, ok := lease[client]; ok {
			t.Leases[i].To, t.Leases[i].Open = at, false
			delete(lease, client)
		}
	}
	for _, e := range f.Events {
		switch e.Kind {
		case Acquired:
			lease[e.Client] = len(t.Leases)
			t.Leases = append(t.Leases, Span{Client: e.Client, From: e.At, Open: true, Token: e.Token, Until: e.Expiry})
		case Renewed:
			if i, ok := lease[e.Client]; ok {
				t.Leases[i].Until = e.Expiry
			}
		case Released:
			closeLease(e.Client, e.At)
		case Expired:
			closeLease(e.Client, e.At)
			t.Expiry = append(t.Expiry, e)
		case Accepted, Rejected:
			t.Writes = append(t.Writes, e)
		case Paused:
			pause[e.Client] = len(t.Pauses)
			t.Pauses = append(t.Pauses, Span{Client: e.Client, From: e.At, Open: true})
		case Resumed:
			if i, ok := pause[e.Client]; ok {
				t.Pauses[i].To, t.Pauses[i].Open = e.At, false
				delete(pause, e.Client)
			}
		}
	}
	for i := range t.Leases {
		if t.Leases[i].Open {
			t.Leases[i].To = f.Now
			t.End = max(t.End, t.Leases[i].Until)
		}
	}
	for i := range t.Pauses {
		if t.Pauses[i].Open {
			t.Pauses[i].To = f.Now
		}
	}
	return t
}

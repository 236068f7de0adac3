package demo

import "fmt"

// Client is what one client is doing and what it believes. Its belief is the
// point of the lesson: a client that was paused keeps believing it holds the
// lock, with the token it was given, until it learns otherwise.
type Client struct {
	Name   string
	Paused bool  // stopped (a GC pause): it sends nothing and notices nothing
	Holds  bool  // it believes it holds the lock
	Token  int64 // the token it believes is current; it writes with this one
}

// Kind is what an event records.
type Kind uint8

const (
	Acquired       Kind = iota + 1 // Acquire returned a token
	AcquireDenied                  // Acquire found the lock held
	Renewed                        // Renew extended the lease
	RenewDenied                    // Renew found the caller is not the holder
	Released                       // Release by the holder
	ReleaseIgnored                 // Release by someone who does not hold the lock
	Expired                        // the lease ran out while the clock moved
	Accepted                       // the resource took a write
	Rejected                       // the resource refused a write: fenced off
	Paused                         // the client stopped
	Resumed                        // the client carried on
)

var kindNames = [...]string{
	Acquired: "acquired", AcquireDenied: "acquire-denied", Renewed: "renewed",
	RenewDenied: "renew-denied", Released: "released", ReleaseIgnored: "release-ignored",
	Expired: "expired", Accepted: "accepted", Rejected: "rejected",
	Paused: "paused", Resumed: "resumed",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Event is one thing that happened, as the model computed it. The page draws
// the space-time diagram from events and the transcripts list them.
type Event struct {
	Frame  int    // the frame the move that caused it leads to
	At     int    // logical time
	Client string // "" for the lock service's own expiry
	Kind   Kind
	Token  int64  // the token issued, renewed, expired or written with
	Expiry int    // for Acquired and Renewed: when the lease runs out
	Value  string // for writes: the value written
	Before string // for writes: the value that was there
	Max    int64  // for writes: the resource's maxToken before the write
}

// ActionError is an action that cannot be played at the point where it stands,
// such as a paused client trying to write.
type ActionError struct {
	Action Action
	Msg    string
}

func (e *ActionError) Error() string { return fmt.Sprintf("%q: %s", e.Action.Source, e.Msg) }

// Run is one playthrough of a scenario: a fresh LockService and Resource, the
// clients, and the events so far. It moves one frame at a time with Step. A
// run never goes back: to show an earlier frame, play a new run up to it.
type Run struct {
	sc      *Scenario
	on      bool // the switch's position
	svc     *LockService
	res     *Resource
	clients []Client
	frame   int // the frame shown now, 1..sc.Frames()
	events  []Event
	err     error
}

// NewRun starts a run at frame 1 with the scenario's switch on or off. For the
// chapter's scenario the switch is fencing: on protects the resource with
// NewResource, off leaves it bare with NewUnfencedResource.
func NewRun(sc *Scenario, on bool) *Run {
	r := &Run{sc: sc, on: on, svc: New(), frame: 1}
	if on {
		r.res = NewResource(sc.Resource)
	} else {
		r.res = NewUnfencedResource(sc.Resource)
	}
	r.clients = make([]Client, len(sc.Clients))
	for i, name := range sc.Clients {
		r.clients[i] = Client{Name: name}
	}
	return r
}

// Replay plays a new run up to frame, which is clamped to the scenario's frames.
func Replay(sc *Scenario, on bool, frame int) (*Run, error) {
	r := NewRun(sc, on)
	for r.frame < frame && r.Step() {
	}
	return r, r.err
}

// Scenario returns the scenario being played.
func (r *Run) Scenario() *Scenario { return r.sc }

// On reports the switch's position.
func (r *Run) On() bool { return r.on }

// Index returns the frame shown now, from 1.
func (r *Run) Index() int { return r.frame }

// Err returns the error that stopped the run, if any.
func (r *Run) Err() error { return r.err }

// Step plays the next move. It returns false at the last frame or once an
// action has failed (see Err).
func (r *Run) Step() bool {
	if r.err != nil || r.frame >= r.sc.Frames() {
		return false
	}
	move := r.sc.Moves[r.frame-1]
	r.frame++
	for _, a := range move.Do {
		if err := r.apply(a); err != nil {
			r.err = err
			return false
		}
	}
	return true
}

func (r *Run) client(name string) *Client {
	for i := range r.clients {
		if r.clients[i].Name == name {
			return &r.clients[i]
		}
	}
	return nil
}

func (r *Run) log(e Event) {
	e.Frame, e.At = r.frame, r.svc.Now()
	r.events = append(r.events, e)
}

func (r *Run) apply(a Action) error {
	if a.Verb == Tick {
		r.tick(a.N)
		return nil
	}
	c := r.client(a.Client)
	if c == nil {
		return &ActionError{a, "unknown client"}
	}
	if c.Paused && a.Verb != Resume {
		return &ActionError{a, fmt.Sprintf("%s is paused and can do nothing until it resumes", c.Name)}
	}
	switch a.Verb {
	case Acquire:
		token, ok := r.svc.Acquire(c.Name, a.N)
		if !ok {
			r.log(Event{Client: c.Name, Kind: AcquireDenied})
			return nil
		}
		c.Holds, c.Token = true, token
		r.log(Event{Client: c.Name, Kind: Acquired, Token: token, Expiry: r.svc.Expiry()})
	case Renew:
		if !r.svc.Renew(c.Name, a.N) {
			// The client learns that it lost the lock: this is the only way
			// a running client finds out.
			c.Holds = false
			r.log(Event{Client: c.Name, Kind: RenewDenied, Token: c.Token})
			return nil
		}
		r.log(Event{Client: c.Name, Kind: Renewed, Token: c.Token, Expiry: r.svc.Expiry()})
	case Release:
		holder, _ := r.svc.Holder()
		r.svc.Release(c.Name)
		kind := Released
		if holder != c.Name {
			kind = ReleaseIgnored
		}
		c.Holds = false
		r.log(Event{Client: c.Name, Kind: kind, Token: c.Token})
	case Write:
		before, max := r.res.Data(), r.res.MaxToken()
		kind := Rejected
		if r.res.Write(c.Token, a.Value) {
			kind = Accepted
		}
		r.log(Event{Client: c.Name, Kind: kind, Token: c.Token, Value: a.Value, Before: before, Max: max})
	case Pause:
		c.Paused = true
		r.log(Event{Client: c.Name, Kind: Paused})
	case Resume:
		if !c.Paused {
			return &ActionError{a, fmt.Sprintf("%s is not paused", c.Name)}
		}
		c.Paused = false
		r.log(Event{Client: c.Name, Kind: Resumed})
	}
	return nil
}

// tick moves the clock and records a lease that ran out on the way, at the
// time it ran out rather than the time anyone noticed.
func (r *Run) tick(d int) {
	holder, token := r.svc.Holder()
	r.svc.Tick(d)
	if holder == "" {
		return
	}
	if now, _ := r.svc.Holder(); now == "" {
		r.events = append(r.events, Event{Frame: r.frame, At: r.svc.Expiry(), Client: holder, Kind: Expired, Token: token})
	}
}

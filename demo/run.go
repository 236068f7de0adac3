package demo

import "fmt"

// Client is what one client is doing and what it believes. Its belief is the
// point of the lesson: a client that was paused keeps believing it holds the
// lock, with the token it was given, until it learns otherwise.
type Client struct {
	Name    string
	Paused  bool   // stopped (a GC pause): it sends nothing and notices nothing
	Crashed bool   // dead for good
	Blocked bool   // in WAIT with timeout 0, until enough replicas acknowledge
	Holds   bool   // it believes it holds the lock
	Token   int64  // the fencing token it believes is current (lock service)
	Value   string // the random value in its lock key (Redis family)
	Until   int    // when its lock runs out by its own reckoning; -1 never
	Cut     []string
	tries   int // lock attempts so far: each draws a fresh random value

	lease    int  // Redisson: the lease it locked with, which unlock sends again
	watchdog bool // Redisson: its watchdog renews the lock
	unlocks  int  // Redisson: unlock calls so far, each with its own latch
}

// Holding is one client's hold on the lock by its own reckoning: from the
// moment it got the lock until its lease or validity runs out. Ended is when
// the client stopped believing (it released, learned it lost the lock, or
// died); -1 while it still believes.
type Holding struct {
	Client string
	From   int
	Until  int // -1: the lock never expires
	Ended  int
}

// validAt reports whether the holding is a legitimate hold at time t.
func (h Holding) validAt(t int) bool {
	return h.From <= t && (h.Until < 0 || t < h.Until) && (h.Ended < 0 || t < h.Ended)
}

// ActionError is an action that cannot be played at the point where it stands,
// such as a paused client trying to write.
type ActionError struct {
	Action Action
	Msg    string
}

func (e *ActionError) Error() string { return fmt.Sprintf("%q: %s", e.Action.Source, e.Msg) }

// Run is one playthrough of a scenario: a fresh store, a fresh Resource, the
// clients, and what happened so far. Like etcd raft's RawNode it takes typed
// input and does no I/O: Apply plays one Action, Step plays the next move of
// the scenario, and Frame shows where the run stands. A run never goes back:
// to show an earlier frame, play a new run up to it.
type Run struct {
	sc         *Scenario
	on         bool // the switch's position
	now        int  // true time; the lock service keeps the same clock
	was        int  // now before the current frame's move
	store      Store
	res        *Resource
	clients    []Client
	frame      int // the frame shown now, 1..sc.Frames()
	events     []Event
	holdings   []Holding
	violations []Violation
	err        error
}

// NewRun starts a run at frame 1 with the scenario's switch on or off. For the
// chapter's scenario the switch is fencing: on protects the resource with
// NewResource, off leaves it bare with NewUnfencedResource.
func NewRun(sc *Scenario, on bool) *Run {
	r := &Run{sc: sc, on: on, frame: 1, store: newStore(sc)}
	if sc.Fencing == "on" || sc.Fencing == "switch" && on {
		r.res = NewResource(sc.Resource)
	} else {
		r.res = NewUnfencedResource(sc.Resource)
	}
	r.clients = make([]Client, len(sc.Clients))
	for i, name := range sc.Clients {
		r.clients[i] = Client{Name: name, Until: -1}
	}
	r.play(sc.Setup)
	r.events = r.events[:0] // the setup is the stage, not the story
	return r
}

// Replay plays a new run up to frame, which is clamped to the scenario's
// frames. Its cost grows with the frames played, no faster.
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
	r.frame++
	r.was = r.now
	r.play(r.sc.Moves[r.frame-2].Do)
	r.checkStuck()
	return r.err == nil
}

func (r *Run) play(actions []Action) {
	for _, a := range actions {
		if !a.playsWhen(r.on) {
			continue
		}
		if err := r.Apply(a); err != nil {
			r.err = err
			return
		}
	}
}

// Apply plays one action now, whatever the switch, and records its events in
// the current frame. An action that cannot be played where it stands (a paused
// client writing, a verb the store does not take) is an *ActionError and
// changes nothing.
func (r *Run) Apply(a Action) error {
	if a.Verb == Tick {
		r.advance(a.Forward)
		return nil
	}
	if !r.sc.Store.Takes(a.Verb) {
		return &ActionError{a, fmt.Sprintf("%s does not apply to the %s store", a.Verb, r.sc.Store)}
	}
	if a.Verb.ByNode() {
		return r.store.do(r, a)
	}
	c := r.client(a.Who)
	switch {
	case c == nil:
		return &ActionError{a, "unknown client"}
	case c.Crashed:
		return &ActionError{a, fmt.Sprintf("%s has crashed and can do nothing", c.Name)}
	case c.Paused && a.Verb != Resume && a.Verb != RRenew:
		// A renewal is the watchdog's, and the store says that it stopped too.
		return &ActionError{a, fmt.Sprintf("%s is paused and can do nothing until it resumes", c.Name)}
	case c.Blocked && a.Verb != Crash:
		return &ActionError{a, fmt.Sprintf("%s is blocked in WAIT until a replica acknowledges, and can do nothing else", c.Name)}
	}
	h := r.head(c.Name, "")
	switch a.Verb {
	case Write:
		if !c.Holds {
			r.log(SkippedWrite{Head: h, Value: a.Value})
			return nil
		}
		// A lock service hands out a token that grows; a Redis lock only a
		// random value, which orders nothing, so the resource sees token 0.
		before, max := r.res.Data(), r.res.MaxToken()
		w := WriteResult{Head: h, Token: c.Token, Value: a.Value, Before: before, Max: max}
		w.OK = r.res.Write(c.Token, a.Value)
		r.log(w)
		r.checkWrite(c, w)
	case Pause:
		c.Paused = true
		r.log(ClientChange{Head: h, What: Paused})
	case Resume:
		if !c.Paused {
			return &ActionError{a, fmt.Sprintf("%s is not paused", c.Name)}
		}
		c.Paused = false
		r.log(ClientChange{Head: h, What: Resumed})
	case Crash:
		c.Crashed, c.Blocked = true, false
		r.endHold(c)
		c.Holds = false
		r.log(ClientChange{Head: h, What: Crashed})
	case Cut:
		c.Cut = append(c.Cut[:0:0], a.Nodes...)
		r.log(ClientChange{Head: h, What: CutOff})
	case Heal:
		c.Cut = nil
		r.log(ClientChange{Head: h, What: Healed})
	default:
		return r.store.do(r, a)
	}
	return nil
}

func (r *Run) client(name string) *Client {
	for i := range r.clients {
		if r.clients[i].Name == name {
			return &r.clients[i]
		}
	}
	return nil
}

// head is the header of an event happening now.
func (r *Run) head(client, node string) Head {
	return Head{Frame: r.frame, At: r.now, Client: client, Node: node}
}

// headAt is the header of an event that happened at a moment the run only
// notices now, such as a lease that ran out while the clock moved.
func (r *Run) headAt(at int, client, node string) Head {
	return Head{Frame: r.frame, At: at, Client: client, Node: node}
}

func (r *Run) log(e Event) { r.events = append(r.events, e) }

// advance moves the clock d forward and has the store record each lease or
// key that ran out on the way, at the time it ran out rather than the time
// anyone noticed. A negative d moves nothing.
func (r *Run) advance(d int) {
	since := r.now
	if d > 0 {
		r.now += d
	}
	r.store.elapse(r, since)
}

// owner returns the client whose random value is v.
// A client draws a fresh value for every attempt; the values are made from
// the scenario, the client and the attempt, so they can be found again
// without keeping a list of them.
func (r *Run) owner(v string) string {
	if v == "" {
		return ""
	}
	for _, c := range r.clients {
		if c.Value == v || redissonField(r.sc.ID, c.Name) == v {
			return c.Name
		}
	}
	for _, c := range r.clients {
		for try := 1; try < c.tries; try++ {
			if lockValue(r.sc.ID, c.Name, try) == v {
				return c.Name
			}
		}
	}
	return ""
}

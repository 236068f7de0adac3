package demo

import "fmt"

// Client is what one client is doing and what it believes. Its belief is the
// point of the lesson: a client that was paused keeps believing it holds the
// lock, with the token it was given, until it learns otherwise.
type Client struct {
	Name    string
	Paused  bool   // stopped (a GC pause): it sends nothing and notices nothing
	Crashed bool   // dead for good
	Blocked bool   // inside a call that does not return (WAIT with timeout 0), until the store frees it
	Holds   bool   // it believes it holds the lock
	Token   int64  // the fencing token it believes is current
	Value   string // the random value in its lock key (Redis family)
	Until   int    // when its lock runs out by its own reckoning; -1 never

	crashedAt int // when it crashed in the story (after the setup); 0 for never
}

// Holding is one client's hold on the lock by its own reckoning: from the
// moment it got the lock until its lease or validity runs out. Ended is when
// the client stopped believing (it released, learned it lost the lock, or
// died); -1 while it still believes.
type Holding struct {
	Client string
	Token  int64 // the token it was given with the lock; 0 for none
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
	JA     string // Msg in Japanese, where the store words it; "" for none
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
	lastWrote  string // whose write the resource took last among events: the key's, without a scan
	holdings   []Holding
	violations []Violation
	err        error

	base int      // free play: the scripted frame it started from; 0 for none
	free []Action // free play: the actions played after base, one a frame
	lean bool     // the finder's (Lean): no free-play history, only the events read back

	// borrowed: the store is another run's, shared (ShareTo); kept is then
	// this run's own, for its next CopyTo.
	borrowed bool
	kept     Store
	// byOrder: the store is PastByOrder, asked once rather than for every
	// state the finder keys (a copy's store is of the same type).
	byOrder bool
}

// NewRun starts a run at frame 1 with the scenario's switch on or off. For the
// chapter's scenario the switch is fencing: on protects the resource with
// NewResource, off leaves it bare with NewUnfencedResource.
func NewRun(sc *Scenario, on bool) *Run {
	r := &Run{sc: sc, on: on, frame: 1, store: sc.Family.New(sc)}
	if k, ok := r.store.(PastByOrder); ok && k.PastByOrder() {
		r.byOrder = true
	}
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
	r.events, r.lastWrote = r.events[:0], "" // the setup is the stage, not the story
	for i := range r.clients {
		r.clients[i].crashedAt = 0
	}
	if s, ok := r.store.(Stager); ok {
		s.Staged()
	}
	return r
}

// Stager is a store that keeps count of what happens in the story (a
// sometimes promise's good thing), and is told when the setup is over, so
// that the stage's own doings do not count.
type Stager interface{ Staged() }

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

// Step plays the next move. It returns false at the last frame, once an
// action has failed (see Err), or in free play, which has left the script.
func (r *Run) Step() bool {
	if r.err != nil || r.frame >= r.sc.Frames() || r.base != 0 {
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
	a, err := step(r.sc, r.on, a) // a program's step, as this position spells it
	if err != nil {
		return err
	}
	return r.apply(&a)
}

// apply is Apply of an action already read as a step: Free reads it once.
func (r *Run) apply(a *Action) error {
	if a.Verb == Tick {
		t, _ := a.Args.(TickArgs)
		r.Advance(t.Forward)
		return nil
	}
	spec := r.sc.Family.spec(r.sc.Store, a.Verb)
	if spec == &noSpec && !a.Verb.Engine() {
		return &ActionError{Action: *a, Msg: fmt.Sprintf("%s does not apply to the %s store", a.Verb, r.sc.Store)}
	}
	if spec.Node {
		return r.store.Do(r, *a)
	}
	c := r.Client(a.Who)
	if c == nil {
		return &ActionError{Action: *a, Msg: "unknown client"}
	}
	if why := clientCannot(c, a, spec, r.sc.Family.OwnsResource); why != (Text{}) {
		return &ActionError{Action: *a, Msg: why.EN, JA: why.JA}
	}
	if !a.Verb.Engine() {
		return r.store.Do(r, *a)
	}
	return r.playEngine(c, a)
}

// clientCannot says, in both languages, why client c cannot do a now, or
// returns the zero Text when it can: the one place the engine's refusals
// are worded, for Apply's errors and for the reasons free play shows beside
// a disabled action.
func clientCannot(c *Client, a *Action, spec *VerbSpec, owns bool) Text {
	switch clientRefusal(c, a, spec, owns) {
	case refusedCrashed:
		return Text{EN: fmt.Sprintf("%s has crashed and can do nothing", c.Name),
			JA: fmt.Sprintf("%s はクラッシュしていて、何もできない", c.Name)}
	case refusedPaused:
		return Text{EN: fmt.Sprintf("%s is paused and can do nothing until it resumes", c.Name),
			JA: fmt.Sprintf("%s は停止中で、再開するまで何もできない", c.Name)}
	case refusedBlocked:
		return Text{EN: fmt.Sprintf("%s is blocked in WAIT until a replica acknowledges, and can do nothing else", c.Name),
			JA: fmt.Sprintf("%s は WAIT でレプリカの確認を待ち続けていて、ほかに何もできない", c.Name)}
	case refusedNotPaused:
		return Text{EN: fmt.Sprintf("%s is not paused", c.Name), JA: fmt.Sprintf("%s は停止していない", c.Name)}
	case refusedNoResource:
		return Text{EN: fmt.Sprintf("here the store keeps the data itself: %s changes it with the store's own commands, not a write to a resource beside it", c.Name),
			JA: fmt.Sprintf("ここではデータはストア自身が持つ。%s はストアのコマンドで変える。横にある資源への書き込みは無い", c.Name)}
	}
	return Text{}
}

// refusal is why a client cannot do an action, before it is put in words:
// the finder asks for every step it tries, and needs no words.
type refusal int

const (
	refusedNone refusal = iota
	refusedCrashed
	refusedPaused
	refusedBlocked
	refusedNotPaused
	refusedNoResource
)

// clientRefusal is why client c cannot do a now; owns: its store keeps the
// data itself (Family.OwnsResource).
func clientRefusal(c *Client, a *Action, spec *VerbSpec, owns bool) refusal {
	switch {
	case a.Verb == Write && owns:
		return refusedNoResource
	case c.Crashed:
		return refusedCrashed
	case c.Paused && a.Verb != Resume && a.Verb != Crash && !spec.Paused:
		// A stopped process sends nothing, but it can still be killed, and
		// its host can die under it.
		return refusedPaused
	case c.Blocked && a.Verb != Crash:
		return refusedBlocked
	case a.Verb == Resume && !c.Paused:
		return refusedNotPaused
	}
	return refusedNone
}

// playEngine plays what any client does alike, whatever the store.
func (r *Run) playEngine(c *Client, a *Action) error {
	h := r.Head(c.Name, "")
	switch a.Verb {
	case Write:
		value := a.Args.(WriteArgs).Value
		if !c.Holds {
			if r.Logs() { // a lean run drops it: boxing it would allocate for nothing
				r.Log(SkippedWrite{Head: h, Value: value})
			}
			return nil
		}
		// A lock service hands out a token that grows; a Redis lock only a
		// random value, which orders nothing, so the resource sees token 0.
		before, max := r.res.Data(), r.res.MaxToken()
		w := WriteResult{Head: h, Token: c.Token, Value: value, Before: before, Max: max}
		w.OK = r.res.Write(c.Token, value)
		if w.OK || r.Logs() { // a lean run keeps only the writes taken: boxing a refused one would allocate for nothing
			r.Log(w)
		}
		r.JudgeWrite(c, w, "")
	case Pause:
		c.Paused = true
		if r.Logs() { // no rule reads a pause back: a lean run boxes none
			r.Log(ClientChange{Head: h, What: Paused})
		}
	case Resume:
		c.Paused = false
		if r.Logs() {
			r.Log(ClientChange{Head: h, What: Resumed})
		}
	case Check:
		m := a.Args.(CheckArgs).Margin
		e := LeaseChecked{Head: h, Margin: m, Left: -1, Held: c.Holds}
		if c.Holds && c.Until >= 0 {
			e.Left = c.Until - r.now
			if e.Left <= m {
				r.LetGo(c)
				e.GaveUp = true
			}
		}
		if r.Logs() {
			r.Log(e)
		}
	case Crash:
		c.Crashed, c.Blocked, c.Paused = true, false, false // dead, not stopped
		r.endHold(c)
		c.Holds, c.crashedAt = false, r.now
		if r.Logs() { // a lean run keeps the moment in the client (CrashedAt)
			r.Log(ClientChange{Head: h, What: Crashed})
		}
		if s, ok := r.store.(Crasher); ok {
			s.Crashed(r, c)
		}
	}
	return nil
}

// Crasher is a store that learns at once that a client's process died: a
// database server, whose connections close with the process's sockets,
// ends their sessions and frees their locks. Any other store learns it
// only as its lease or session runs out.
type Crasher interface {
	Crashed(r *Run, c *Client)
}

// Client returns the client named name, or nil. A store changes the
// client's belief through it (Holds, Token, Until) and through Hold, LetGo.
func (r *Run) Client(name string) *Client {
	for i := range r.clients {
		if sameName(r.clients[i].Name, name) {
			return &r.clients[i]
		}
	}
	return nil
}

// sameName is a == b for clients' names, which are mostly a letter: their
// first bytes tell most apart, and a name of one byte is whole, without
// the call a string comparison makes. The finder looks clients up by name
// for every step it tries.
func sameName(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || a[0] == b[0] && (len(a) == 1 || a == b))
}

// CrashedAt is when the client called name crashed, after the scenario's
// setup; 0 when it has not (or did in the setup).
func (r *Run) CrashedAt(name string) int {
	if c := r.Client(name); c != nil {
		return c.crashedAt
	}
	return 0
}

// Clients returns the run's clients, in the scenario's order.
func (r *Run) Clients() []Client { return r.clients }

// Now returns the run's true time.
func (r *Run) Now() int { return r.now }

// Resource returns the resource the lock protects.
func (r *Run) Resource() *Resource { return r.res }

// Events returns what happened so far, in order.
func (r *Run) Events() []Event { return r.events }

// Head is the header of an event happening now.
func (r *Run) Head(client, node string) Head {
	return Head{Frame: r.frame, At: r.now, Client: client, Node: node}
}

// HeadAt is the header of an event that happened at a moment the run only
// notices now, such as a lease that ran out while the clock moved.
func (r *Run) HeadAt(at int, client, node string) Head {
	return Head{Frame: r.frame, At: at, Client: client, Node: node}
}

// Log records e in the current frame.
func (r *Run) Log(e Event) {
	if w, ok := e.(WriteResult); ok && w.OK {
		r.lastWrote = w.Client
	}
	if r.lean && !readBack(e) {
		return
	}
	r.events = append(r.events, e)
}

// Note logs e unless r is lean, for an event that no rule reads back:
// boxing it as an Event would allocate for every step the finder tries,
// only for Log to drop it.
func Note[E Event](r *Run, e E) {
	if !r.lean {
		r.Log(e)
	}
}

// Logs reports whether r keeps the events its rules do not read back: a
// lean run drops them, so a store may skip building one for it, as boxing
// it as an Event allocates for every step the finder tries.
func (r *Run) Logs() bool { return !r.lean }

// ReadBack is an event of a family's that its store looks for again among
// the run's events (a client's blocked WAIT), so a lean run keeps it.
type ReadBack interface {
	Event
	ReadBack()
}

// readBack reports whether a run's rules read e again later: a write the
// resource took (whom a late write overwrote), and a family's ReadBack
// events. (Since when a dead holder keeps the lock is the client's
// CrashedAt.)
func readBack(e Event) bool {
	switch e := e.(type) {
	case WriteResult:
		return e.OK
	case ReadBack:
		return true
	}
	return false
}

// Lean makes r a run for the finder, which keeps each state's history
// itself and never shows its frames: r keeps no free-play history and only
// the events its rules read again, so copying it for every step tried is
// cheap. Only a store with its own key (Keyer) can: the others' states are
// told apart by their history. It reports whether r is lean.
func (r *Run) Lean() bool {
	if _, ok := r.store.(Keyer); !ok {
		return false
	}
	r.lean, r.free = true, nil
	kept := r.events[:0:0]
	for _, e := range r.events {
		if readBack(e) {
			kept = append(kept, e)
		}
	}
	r.events = kept
	return true
}

// Fail stops the run with err, unless it has already stopped: a store that
// finds, while the clock moves, an action it cannot play.
func (r *Run) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// Advance moves the clock d forward and has the store record each lease or
// key that ran out on the way, at the time it ran out rather than the time
// anyone noticed. A negative d moves nothing.
func (r *Run) Advance(d int) {
	since := r.now
	if d > 0 {
		r.now += d
	}
	r.store.Elapse(r, since)
}

// AsOf plays f as if the clock read at (no later than now): what a store
// only notices once the clock has moved on (a session ended at its
// deadline) is logged, and judged, at the moment it happened.
func (r *Run) AsOf(at int, f func()) {
	now := r.now
	r.now = min(at, now)
	defer func() { r.now = now }()
	f()
}

// Store returns the run's store, for its family's own offers, which may
// need more of it than a frame shows.
func (r *Run) Store() Store { return r.store }

package demo

import (
	"fmt"
	"slices"
)

// Client is what one client is doing and what it believes. Its belief is the
// point of the lesson: a client that was paused keeps believing it holds the
// lock, with the token it was given, until it learns otherwise.
type Client struct {
	Name    string
	Paused  bool   // stopped (a GC pause): it sends nothing and notices nothing
	Crashed bool   // dead for good
	Holds   bool   // it believes it holds the lock
	Token   int64  // the fencing token it believes is current (lock service)
	Value   string // the random value in its lock key (Redis family)
	Until   int    // when its lock runs out by its own reckoning; -1 never
	Cut     []string
	tries   int // lock attempts so far: each draws a fresh random value
}

// Kind is what an event records.
type Kind uint8

// The events. The lock service's first, then the Redis family's, then what
// happens to clients, nodes and the resource.
const (
	Acquired       Kind = iota + 1 // Acquire returned a token
	AcquireDenied                  // Acquire found the lock held
	Renewed                        // Renew extended the lease
	RenewDenied                    // Renew found the caller is not the holder
	Released                       // Release by the holder
	ReleaseIgnored                 // Release by someone who does not hold the lock
	Expired                        // the lease ran out while the clock moved

	SetCmd      // SET or SETNX; OK says whether the key was set
	ExpireCmd   // EXPIRE
	DelCmd      // DEL
	UnlockCmd   // the compare-and-delete script
	ExtendCmd   // the watchdog's compare-and-renew
	WaitCmd     // WAIT; N is how many replicas acknowledged
	NodeTry     // one node's answer during a Redlock acquisition
	QuorumHeld  // Redlock: a quorum with validity left
	QuorumLost  // Redlock: no quorum or no validity left; the client unlocks all
	KeyExpired  // a key's TTL ran out on a node
	Unreachable // a command to a node that is down or cut off

	Accepted     // the resource took a write
	Rejected     // the resource refused a write: fenced off
	WriteSkipped // a client that does not believe it holds the lock does not write
	Paused       // the client stopped
	Resumed      // the client carried on
	Crashed      // the client died
	CutOff       // the network cut a client off from nodes
	Healed       // the network came back

	NodeDown   // a node stopped
	NodeUp     // a node came back
	Promoted   // the replica became the primary
	Replicated // the primary shipped its writes to the replica
	ClockJump  // a node's wall clock jumped
	MonotonicOn
)

var kindNames = [...]string{
	Acquired: "acquired", AcquireDenied: "acquire-denied", Renewed: "renewed",
	RenewDenied: "renew-denied", Released: "released", ReleaseIgnored: "release-ignored",
	Expired: "expired",
	SetCmd:  "set", ExpireCmd: "expire", DelCmd: "del", UnlockCmd: "unlock", ExtendCmd: "extend",
	WaitCmd: "wait", NodeTry: "node-try", QuorumHeld: "quorum-held", QuorumLost: "quorum-lost",
	KeyExpired: "key-expired", Unreachable: "unreachable",
	Accepted: "accepted", Rejected: "rejected", WriteSkipped: "write-skipped",
	Paused: "paused", Resumed: "resumed", Crashed: "crashed", CutOff: "cut", Healed: "healed",
	NodeDown: "node-down", NodeUp: "node-up", Promoted: "promoted", Replicated: "replicated",
	ClockJump: "clock-jump", MonotonicOn: "monotonic",
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
	At     int    // true time
	Kind   Kind   //
	Client string // who acted; "" for what the store did on its own
	Node   string // the node that answered or changed
	Key    string
	Value  string // a lock's random value, or what a write wrote
	Token  int64  // the token issued, renewed, expired or written with
	N      int    // the lease, TTL, jump or replica count the command carried
	Expiry int    // when the lease or key runs out
	Count  int    // WAIT: replicas that acknowledged; a node that did not answer: ms waited
	Max    int64  // a write: the resource's maxToken before it
	OK     bool   // the answer: granted, set, deleted, renewed
	NX     bool   // SET with NX (a separate SETNX command has N == -1)
	Verb   Verb   // the action that sent the command, for one that got no answer
	Before string // a write: the value it replaced
	Quorum *Quorum
}

// Quorum is the arithmetic of one Redlock acquisition, as the client does it.
type Quorum struct {
	Locked   int // nodes that said OK
	Need     int // N/2+1
	TTL      int
	Elapsed  int // T2 - T1
	Drift    int // 0.01 x TTL + 2 ms, as the reference implementations
	Validity int // TTL - elapsed - drift
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

// Run is one playthrough of a scenario: a fresh store (a LockService or Redis
// nodes), a fresh Resource, the clients, and what happened so far. It moves
// one frame at a time with Step. A run never goes back: to show an earlier
// frame, play a new run up to it.
type Run struct {
	sc         *Scenario
	on         bool // the switch's position
	now        int  // true time; the lock service keeps the same clock
	svc        *LockService
	nodes      []*Node
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
	r := &Run{sc: sc, on: on, frame: 1}
	if sc.Store == "lockservice" {
		r.svc = New()
	}
	for _, name := range sc.NodeNames() {
		n := &Node{Name: name, Up: true}
		switch name {
		case "primary":
			n.Role = "primary"
		case "replica":
			n.Role = "replica"
		}
		r.nodes = append(r.nodes, n)
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
	r.events = r.events[:0] // the setup is the stage, not the story
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
	r.frame++
	r.play(r.sc.Moves[r.frame-2].Do)
	r.checkStuck()
	r.share()
	return r.err == nil
}

// share swaps the run's own copy of the events for the scenario's, which Load
// recorded once. Every run of a scenario in one switch position tells the
// same story, so thousands of live runs need not keep thousands of copies.
// The shared slice is capped at its length: the next move's events are
// appended to a fresh copy, never into the shared array.
func (r *Run) share() {
	log := &r.sc.logs[b2i(r.on)]
	if r.err != nil || len(log.ends) < r.frame {
		return
	}
	if end := log.ends[r.frame-1]; end == len(r.events) {
		r.events = log.events[:end:end]
	}
}

// story is the events of a whole scenario in one switch position, and how
// many of them each frame shows.
type story struct {
	events []Event
	ends   []int // ends[k-1]: the number of events up to frame k
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (r *Run) play(actions []Action) {
	for _, a := range actions {
		if a.When == "on" && !r.on || a.When == "off" && r.on {
			continue
		}
		if err := r.apply(a); err != nil {
			r.err = err
			return
		}
	}
}

func (r *Run) client(name string) *Client {
	for i := range r.clients {
		if r.clients[i].Name == name {
			return &r.clients[i]
		}
	}
	return nil
}

func (r *Run) node(name string) *Node {
	for _, n := range r.nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// primary is the node a Redis client talks to: the only node, or whichever
// of the pair is primary now.
func (r *Run) primary() *Node {
	for _, n := range r.nodes {
		if n.Role == "primary" || n.Role == "" {
			return n
		}
	}
	return nil
}

func (r *Run) log(e Event) {
	e.Frame = r.frame
	if e.At == 0 {
		e.At = r.now
	}
	r.events = append(r.events, e)
}

func (r *Run) apply(a Action) error {
	if a.Verb == Tick {
		r.tick(a.N)
		return nil
	}
	if verbs[a.Verb].node {
		return r.applyNode(a)
	}
	c := r.client(a.Who)
	if c == nil {
		return &ActionError{a, "unknown client"}
	}
	switch {
	case c.Crashed:
		return &ActionError{a, fmt.Sprintf("%s has crashed and can do nothing", c.Name)}
	case c.Paused && a.Verb != Resume:
		return &ActionError{a, fmt.Sprintf("%s is paused and can do nothing until it resumes", c.Name)}
	}
	switch a.Verb {
	case Acquire:
		token, ok := r.svc.Acquire(c.Name, a.N)
		if !ok {
			r.log(Event{Client: c.Name, Kind: AcquireDenied, N: a.N})
			return nil
		}
		c.Token = token
		r.hold(c, r.svc.Expiry())
		r.log(Event{Client: c.Name, Kind: Acquired, Token: token, N: a.N, Expiry: r.svc.Expiry(), OK: true})
	case Renew:
		if !r.svc.Renew(c.Name, a.N) {
			// The client learns that it lost the lock: this is the only way
			// a running client finds out.
			r.letGo(c)
			r.log(Event{Client: c.Name, Kind: RenewDenied, Token: c.Token, N: a.N})
			return nil
		}
		r.extendHold(c, r.svc.Expiry())
		r.log(Event{Client: c.Name, Kind: Renewed, Token: c.Token, N: a.N, Expiry: r.svc.Expiry(), OK: true})
	case Release:
		holder, _ := r.svc.Holder()
		r.svc.Release(c.Name)
		kind := Released
		if holder != c.Name {
			kind = ReleaseIgnored
		}
		r.letGo(c)
		r.log(Event{Client: c.Name, Kind: kind, Token: c.Token})
	case Write:
		if !c.Holds {
			r.log(Event{Client: c.Name, Kind: WriteSkipped, Value: a.Value})
			return nil
		}
		// A lock service hands out a token that grows; a Redis lock only a
		// random value, which orders nothing, so the resource sees token 0.
		before, max := r.res.Data(), r.res.MaxToken()
		kind := Rejected
		if r.res.Write(c.Token, a.Value) {
			kind = Accepted
		}
		r.log(Event{Client: c.Name, Kind: kind, Token: c.Token, Value: a.Value, Before: before, Max: max})
		if kind == Accepted {
			r.checkWrite(c, before)
		}
	case Pause:
		c.Paused = true
		r.log(Event{Client: c.Name, Kind: Paused})
	case Resume:
		if !c.Paused {
			return &ActionError{a, fmt.Sprintf("%s is not paused", c.Name)}
		}
		c.Paused = false
		r.log(Event{Client: c.Name, Kind: Resumed})
	case Crash:
		c.Crashed = true
		r.endHold(c)
		c.Holds = false
		r.log(Event{Client: c.Name, Kind: Crashed})
	case Cut:
		c.Cut = append(c.Cut[:0:0], a.Nodes...)
		r.log(Event{Client: c.Name, Kind: CutOff})
	case Heal:
		c.Cut = nil
		r.log(Event{Client: c.Name, Kind: Healed})
	case Redlock, RedlockUnlock:
		r.redlock(c, a)
	default:
		return r.redis(c, a)
	}
	return nil
}

// redis plays one command of a client against the primary (or only) node.
func (r *Run) redis(c *Client, a Action) error {
	n := r.primary()
	if !n.Up {
		e := Event{Client: c.Name, Node: n.Name, Kind: Unreachable, Key: a.Key, N: a.N, NX: a.NX, Verb: a.Verb, Value: c.Value}
		if a.Verb == Set || a.Verb == SetNX {
			c.tries++
			e.Value = lockValue(r.sc.ID, c.Name, c.tries)
		}
		r.log(e)
		return nil
	}
	e := Event{Client: c.Name, Node: n.Name, Key: a.Key, N: a.N}
	switch a.Verb {
	case Set, SetNX:
		c.tries++
		value := lockValue(r.sc.ID, c.Name, c.tries)
		ttl := a.N // 0 for SETNX, or SET without PX: no expiry
		e.Kind, e.Value, e.NX = SetCmd, value, a.Verb == SetNX || a.NX
		e.OK = n.Set(a.Key, value, e.NX, ttl, r.now)
		if a.Verb == SetNX {
			e.N = -1 // marks the separate SETNX command
		}
		if e.OK {
			c.Value = value
			until := -1
			if ttl > 0 {
				until = r.now + ttl
			}
			r.hold(c, until)
			e.Expiry = until
		}
	case Expire:
		e.Kind = ExpireCmd
		e.OK = n.Expire(a.Key, a.N*1000, r.now)
		if e.OK && c.Holds {
			r.extendHold(c, r.now+a.N*1000)
		}
	case Del:
		e.Kind = DelCmd
		e.OK = n.Del(a.Key, r.now)
		r.letGo(c)
	case Unlock:
		e.Kind, e.Value = UnlockCmd, c.Value
		e.OK = n.DelIfEq(a.Key, c.Value, r.now)
		r.letGo(c)
	case Extend:
		e.Kind, e.Value = ExtendCmd, c.Value
		e.OK = n.ExpireIfEq(a.Key, c.Value, a.N, r.now)
		if e.OK {
			r.extendHold(c, r.now+a.N)
			e.Expiry = r.now + a.N
		} else {
			r.letGo(c) // the watchdog finds the lock gone and tells the client
		}
	case Wait:
		// WAIT blocks until numreplicas replicas acknowledged what this
		// client wrote. The model ships the backlog if the replica is up.
		e.Kind = WaitCmd
		if rep := r.replicaOf(n); rep != nil && rep.Up {
			n.ship(rep)
			e.Count = 1
		}
		e.OK = e.Count >= a.N
	}
	r.log(e)
	return nil
}

func (r *Run) replicaOf(primary *Node) *Node {
	for _, n := range r.nodes {
		if n != primary && n.Role == "replica" {
			return n
		}
	}
	return nil
}

// redlock plays the Redlock algorithm for one client: note T1, ask every node
// in turn with a short timeout, then count. The clock moves while it asks,
// which is exactly what the validity arithmetic accounts for.
func (r *Run) redlock(c *Client, a Action) {
	if a.Verb == Redlock {
		c.tries++
		c.Value = lockValue(r.sc.ID, c.Name, c.tries)
	}
	t1 := r.now
	locked := 0
	for _, n := range r.nodes {
		// Each request takes time, and keys may run out meanwhile.
		before := r.now
		reachable := n.Up && !slices.Contains(c.Cut, n.Name)
		if !reachable {
			r.now += r.sc.Timeout
			r.expireKeys(before)
			r.log(Event{Client: c.Name, Node: n.Name, Kind: Unreachable, Key: a.Key, Value: c.Value, N: a.N, NX: a.Verb == Redlock, Verb: a.Verb, Count: r.sc.Timeout})
			continue
		}
		r.now += r.sc.Latency
		r.expireKeys(before)
		if a.Verb == RedlockUnlock {
			ok := n.DelIfEq(a.Key, c.Value, r.now)
			r.log(Event{Client: c.Name, Node: n.Name, Kind: UnlockCmd, Key: a.Key, Value: c.Value, OK: ok})
			continue
		}
		ok := n.Set(a.Key, c.Value, true, a.N, r.now)
		if ok {
			locked++
		}
		e := Event{Client: c.Name, Node: n.Name, Kind: NodeTry, Key: a.Key, Value: c.Value, N: a.N, OK: ok, NX: true}
		if ok {
			e.Expiry = r.now + a.N
		}
		r.log(e)
	}
	if a.Verb == RedlockUnlock {
		r.letGo(c)
		return
	}
	q := &Quorum{Locked: locked, Need: len(r.nodes)/2 + 1, TTL: a.N, Elapsed: r.now - t1, Drift: a.N/100 + 2}
	q.Validity = q.TTL - q.Elapsed - q.Drift
	if q.Locked >= q.Need && q.Validity > 0 {
		r.hold(c, t1+q.TTL-q.Drift)
		r.log(Event{Client: c.Name, Kind: QuorumHeld, Key: a.Key, Value: c.Value, OK: true, Expiry: t1 + q.TTL - q.Drift, Quorum: q})
		return
	}
	r.log(Event{Client: c.Name, Kind: QuorumLost, Key: a.Key, Value: c.Value, Quorum: q})
	r.letGo(c) // it knows it failed, whatever it held before
	// Without the lock, undo what was set, on every node: also those that
	// failed to answer, since they may have set the key after all.
	for _, n := range r.nodes {
		if n.Up && !slices.Contains(c.Cut, n.Name) {
			if n.DelIfEq(a.Key, c.Value, r.now) {
				r.log(Event{Client: c.Name, Node: n.Name, Kind: UnlockCmd, Key: a.Key, Value: c.Value, OK: true})
			}
		}
	}
}

func (r *Run) applyNode(a Action) error {
	targets := r.nodes
	if a.Who != "all" {
		targets = []*Node{r.node(a.Who)}
	}
	for _, n := range targets {
		switch a.Verb {
		case Down:
			// A node that goes down without persistence comes back empty.
			n.Up, n.keys, n.backlog = false, nil, nil
			r.log(Event{Node: n.Name, Kind: NodeDown})
		case Up:
			n.Up = true
			r.log(Event{Node: n.Name, Kind: NodeUp})
		case Jump:
			before := r.now
			n.Offset += a.N
			r.log(Event{Node: n.Name, Kind: ClockJump, N: a.N})
			r.expireKeys(before)
		case Monotonic:
			n.Monotonic = true
			r.log(Event{Node: n.Name, Kind: MonotonicOn})
		case Promote:
			if n.Role != "replica" {
				return &ActionError{a, n.Name + " is not a replica"}
			}
			for _, m := range r.nodes {
				if m.Role == "primary" {
					m.Role = "former-primary"
				}
			}
			n.Role = "primary"
			r.log(Event{Node: n.Name, Kind: Promoted})
		case Replicate:
			rep := r.replicaOf(n)
			if n.Role != "primary" || !n.Up || rep == nil || !rep.Up {
				return &ActionError{a, n.Name + " cannot replicate: it must be an up primary with an up replica"}
			}
			r.log(Event{Node: n.Name, Kind: Replicated, N: n.ship(rep)})
		}
	}
	return nil
}

// tick moves the clock and records each lease or key that ran out on the way,
// at the time it ran out rather than the time anyone noticed.
func (r *Run) tick(d int) {
	before := r.now
	var holder string
	var token int64
	if r.svc != nil {
		holder, token = r.svc.Holder()
		r.svc.Tick(d)
	}
	if d > 0 {
		r.now += d
	}
	if holder != "" {
		if now, _ := r.svc.Holder(); now == "" {
			r.events = append(r.events, Event{Frame: r.frame, At: r.svc.Expiry(), Client: holder, Kind: Expired, Token: token})
		}
	}
	r.expireKeys(before)
}

// expireKeys records the keys that ran out between since and now, and drops them.
func (r *Run) expireKeys(since int) {
	var expired []Event
	for _, n := range r.nodes {
		for _, e := range slices.Clone(n.keys) {
			if !n.expired(e, r.now) {
				continue
			}
			// When did it run out? On its own clock, or at a jump.
			at := e.setAt + e.ttl
			if !n.Monotonic {
				at = e.wallAt + e.ttl - n.Offset
			}
			at = min(max(at, since), r.now)
			expired = append(expired, Event{Frame: r.frame, At: at, Node: n.Name, Kind: KeyExpired, Key: e.key, Value: e.value, Client: r.owner(e.value)})
			n.lookup(e.key, r.now)
		}
	}
	slices.SortStableFunc(expired, func(a, b Event) int { return a.At - b.At })
	r.events = append(r.events, expired...)
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
		if c.Value == v {
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

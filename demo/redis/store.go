package redis

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"

	"github.com/distlock/fencing-demo/demo"
)

// redisNodes plays the Redis family: one node, a primary with an asynchronous
// replica, or Redlock's independent nodes. Every client talks to the primary
// (the only node, or whichever of the pair is primary now), except a Redlock
// client, which asks every node in turn.
type redisNodes struct {
	sc      *demo.Scenario
	nodes   []*Node
	latency int      // Redlock: ms a reachable node takes to answer
	timeout int      // Redlock: ms a client waits for a node before giving up
	clients []client // by the client's place in the scenario's list
	// waiters are the clients whose code, in this position of the switch,
	// sends WAIT after its SET and trusts the lock only once WAIT answers;
	// read from the script on first use, and shared by every copy.
	waiters map[string]bool
	// lua is the scenario's scripts and the VM that runs them, shared by
	// every copy; undo is where eval keeps a node's keys while a script
	// runs, to put them back if the sandbox stops it.
	lua  *scripts
	undo []entry
	// fields are each client's Redisson hash field, by the client's place,
	// worked out once: naming a key's owner compares them for every key,
	// and each is a SHA-256.
	fields []string
}

// field is client's Redisson hash field.
func (s *redisNodes) field(client string) string {
	if i := slices.Index(s.sc.Clients, client); i >= 0 {
		return s.fields[i]
	}
	return redissonField(s.sc.RandomSeed(), client)
}

// client is what a Redis client keeps beyond its belief: the attempts that
// drew its random values, Redisson's lease and watchdog, a Redlock client's
// cut-off nodes.
type client struct {
	tries    int      // lock attempts so far: each draws a fresh random value
	lease    int      // Redisson: the lease it locked with, which unlock sends again
	watchdog bool     // Redisson: its watchdog renews the lock
	unlocks  int      // Redisson: unlock calls so far, each with its own latch
	cut      []string // Redlock: the nodes the network drops its packets to
	// unconfirmed: its SET went through, and it waits for WAIT before it
	// trusts the lock, which then runs until until (-1: never).
	unconfirmed bool
	until       int
	// renewed: a renewal of its own lock went through (an EXPIRE or a
	// renew script that answered 1 on its own value), for the sometimes
	// property that asks for one.
	renewed bool
}

func (s *redisNodes) of(c *demo.Client) *client {
	if i := slices.Index(s.sc.Clients, c.Name); i >= 0 {
		return &s.clients[i]
	}
	return &client{} // no client of the scenario's: nothing to keep
}

func newRedisNodes(sc *demo.Scenario) *redisNodes {
	s := &redisNodes{sc: sc, latency: sc.Latency, timeout: sc.Timeout, clients: make([]client, len(sc.Clients)), lua: newScripts()}
	for _, c := range sc.Clients {
		s.fields = append(s.fields, redissonField(sc.RandomSeed(), c))
	}
	for _, name := range sc.NodeNames() {
		n := &Node{Name: name, Up: true}
		switch name {
		case "primary":
			n.Role = "primary"
		case "replica":
			n.Role = "replica"
		}
		s.nodes = append(s.nodes, n)
	}
	return s
}

func (s *redisNodes) node(name string) *Node {
	for _, n := range s.nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// primary is the node a Redis client talks to: the only node, or whichever
// of the pair is primary now.
func (s *redisNodes) primary() *Node {
	for _, n := range s.nodes {
		if n.Role == "primary" || n.Role == "" {
			return n
		}
	}
	return nil
}

func (s *redisNodes) replicaOf(primary *Node) *Node {
	for _, n := range s.nodes {
		if n != primary && n.Role == "replica" {
			return n
		}
	}
	return nil
}

func (s *redisNodes) Do(r *demo.Run, a demo.Action) error {
	switch a.Verb {
	case Down, Up, Hold, Restart, Jump, Slew, Promote, Replicate:
		return s.nodeAction(r, a)
	}
	c := r.Client(a.Who)
	switch a.Verb {
	case RedlockLock:
		s.redlock(r, c, a.Args.(RedlockArgs))
		return nil
	case RedlockUnlock:
		s.unlockAll(r, c, a.Args.(KeyArgs).Key)
		r.LetGo(c)
		return nil
	case Cut:
		s.of(c).cut = append([]string(nil), a.Args.(NodesArgs).Nodes...)
		demo.Note(r, Partition{Head: r.Head(c.Name, ""), What: CutOff, Nodes: s.of(c).cut})
		return nil
	case Heal:
		s.of(c).cut = nil
		demo.Note(r, Partition{Head: r.Head(c.Name, ""), What: Healed})
		return nil
	case RLock, RTryLock, RRenew, RUnlock:
		return s.redisson(r, c, a)
	case Eval:
		return s.eval(r, c, a)
	}
	return s.command(r, c, a)
}

// command plays one command of a client against the primary (or only) node.
func (s *redisNodes) command(r *demo.Run, c *demo.Client, a demo.Action) error {
	n := s.primary()
	cmd, err := s.request(c, a, r.Head(c.Name, n.Name))
	if err != nil {
		return err
	}
	if !n.Up {
		r.Log(NoAnswer{Head: cmd.Header(), Sent: cmd})
		return nil
	}
	if cmd = s.answer(r, c, n, cmd); cmd != nil {
		r.Log(cmd)
	}
	return nil
}

// request is the command a client's action sends, as it goes out. A SET
// draws a fresh random value for every attempt; the other commands carry
// the value the client last set.
func (s *redisNodes) request(c *demo.Client, a demo.Action, h demo.Head) (Command, error) {
	value := c.Value
	if a.Verb == Set || a.Verb == SetNX {
		s.of(c).tries++
		value = lockValue(s.sc.RandomSeed(), c.Name, s.of(c).tries)
	}
	switch x := a.Args.(type) {
	case SetArgs:
		return SetCommand{Head: h, Key: x.Key, Value: value, NX: x.NX, PX: x.PX}, nil
	case ExpireArgs:
		return ExpireCommand{Head: h, Key: x.Key, Seconds: x.Seconds}, nil
	case TTLArgs:
		return RenewScript{Head: h, Key: x.Key, Value: value, PX: x.PX}, nil
	case WaitArgs:
		return WaitCommand{Head: h, Replicas: x.Replicas, Timeout: x.Timeout}, nil
	case KeyArgs:
		switch a.Verb {
		case SetNX:
			return SetNXCommand{Head: h, Key: x.Key, Value: value}, nil
		case Incr:
			return IncrCommand{Head: h, Key: x.Key}, nil
		case Del:
			return DelCommand{Head: h, Key: x.Key}, nil
		case Unlock:
			return UnlockScript{Head: h, Key: x.Key, Value: value}, nil
		}
	}
	return nil, &demo.ActionError{Action: a, Msg: "a Redis node does not " + string(a.Verb)}
}

// answer plays cmd on node n, which is up, and returns it with the node's
// answer; nil when the client is left blocked without one (WAIT 0).
func (s *redisNodes) answer(r *demo.Run, c *demo.Client, n *Node, cmd Command) Command {
	now := r.Now()
	switch e := cmd.(type) {
	case SetCommand:
		if e.OK = n.Set(e.Key, e.Value, e.NX, e.PX, now); e.OK { // PX 0: no expiry
			e.Expiry = s.taken(r, c, e.Value, e.PX)
		}
		return e
	case SetNXCommand:
		if e.OK = n.Set(e.Key, e.Value, true, 0, now); e.OK {
			s.taken(r, c, e.Value, 0)
		}
		return e
	case ExpireCommand:
		value, _ := n.Get(e.Key, now)
		e.Owner = s.owner(r, value)
		if e.OK = n.Expire(e.Key, e.Seconds*1000, now); e.OK && c.Holds {
			s.renewed(r, c, e.Key, value, now+e.Seconds*1000)
		}
		return e
	case IncrCommand:
		var ok bool
		if e.Value, ok = n.Incr(e.Key, now); ok {
			c.Token = e.Value // the seed's token = redis.incr(...)
		}
		e.Err = !ok
		return e
	case DelCommand:
		e.OK = n.Del(e.Key, now)
		s.letGo(r, c)
		return e
	case UnlockScript:
		e.OK = n.DelIfEq(e.Key, e.Value, now)
		s.letGo(r, c)
		return e
	case RenewScript:
		if e.OK = n.ExpireIfEq(e.Key, e.Value, e.PX, now); e.OK {
			e.Expiry = now + e.PX
			r.ExtendHold(c, e.Expiry)
			s.of(c).renewed = true
		} else {
			r.LetGo(c) // the watchdog finds the lock gone and tells the client
		}
		return e
	case WaitCommand:
		return s.wait(r, c, n, e)
	}
	return cmd
}

// wait plays WAIT: it blocks until numreplicas replicas acknowledged what
// this client wrote, or the timeout passes, and answers how many had by
// then. A replica that is up acknowledges at once here. With timeout 0 and
// too few replicas, the client is blocked for ever, or until a replica comes
// back.
func (s *redisNodes) wait(r *demo.Run, c *demo.Client, n *Node, e WaitCommand) Command {
	if rep := s.replicaOf(n); rep != nil && rep.Up {
		n.ship(rep)
		e.Acked = 1
	}
	if e.Acked < e.Replicas {
		if e.Timeout == 0 {
			c.Blocked = true
			r.Log(BlockedWait{Head: e.Head, Replicas: e.Replicas})
			return nil
		}
		r.Advance(e.Timeout)
		e.Head = r.Head(c.Name, n.Name)
	}
	s.confirmed(r, c, e)
	return e
}

// letGo is c giving up its lock, trusted or still waiting for WAIT.
func (s *redisNodes) letGo(r *demo.Run, c *demo.Client) {
	r.LetGo(c)
	s.of(c).unconfirmed = false
}

// renewed records what a renewal that answered 1 did for c, which
// believes it holds the lock until until now. Only when the key held c's
// own value is that a renewal of its lock; otherwise it renewed someone
// else's (RenewedOther), and c's belief is longer while its lease is as
// over as it was.
func (s *redisNodes) renewed(r *demo.Run, c *demo.Client, key, value string, until int) {
	if value == c.Value {
		r.ExtendHold(c, until)
		s.of(c).renewed = true
		return
	}
	c.Until = until
	r.Violate(demo.Violation{Kind: RenewedOther, At: r.Now(), Client: c.Name, Other: s.owner(r, value), Value: key})
}

// taken records that c's SET went through with value: c now believes it
// holds the lock until the TTL runs out (-1: never), which it returns. A
// client that waits for WAIT does not believe it yet: it trusts the lock
// once WAIT answers that a replica has the key, with the lease counted
// from its SET.
func (s *redisNodes) taken(r *demo.Run, c *demo.Client, value string, ttl int) int {
	c.Value = value
	until := -1
	if ttl > 0 {
		until = r.Now() + ttl
	}
	if s.waitsForWait(r, c.Name) {
		r.LetGo(c) // a new SET: whatever it trusted before is not this lock
		k := s.of(c)
		k.unconfirmed, k.until = true, until
		return until
	}
	r.Hold(c, until)
	return until
}

// confirmed records WAIT's answer for c: with at least one replica's
// acknowledgement, and as many as it asked for, a client that waited
// trusts the key its SET wrote; with fewer it does not trust it at all.
func (s *redisNodes) confirmed(r *demo.Run, c *demo.Client, e WaitCommand) {
	k := s.of(c)
	if !k.unconfirmed {
		return
	}
	k.unconfirmed = false
	if e.Acked >= max(e.Replicas, 1) {
		r.Hold(c, k.until)
	}
}

// waitsForWait reports whether client's code, as the script plays it in
// this position, sends WAIT after a SET: the careful client of the
// failover story, which trusts the lock only once WAIT has answered.
func (s *redisNodes) waitsForWait(r *demo.Run, client string) bool {
	if s.waiters == nil {
		s.waiters = map[string]bool{}
		set := map[string]bool{}
		for _, m := range s.sc.Moves {
			for _, a := range m.Do {
				switch {
				case !a.PlaysWhen(r.On()):
				case a.Verb == Set || a.Verb == SetNX:
					set[a.Who] = true
				case a.Verb == Wait && set[a.Who]:
					s.waiters[a.Who] = true
				}
			}
		}
	}
	return s.waiters[client]
}

// MaxRetryDelay is the most a Redlock client waits, at random, before a new
// attempt: redlock-rb's 200 ms.
const MaxRetryDelay = 200

// redlock plays the Redlock algorithm for one client: note T1, ask every node
// in turn with a short timeout, then count. The clock moves while it asks,
// which is exactly what the validity arithmetic accounts for. Without the
// lock it unlocks every node, waits a random delay and, while it has retries
// left, tries again.
func (s *redisNodes) redlock(r *demo.Run, c *demo.Client, a RedlockArgs) {
	for try := 0; ; try++ {
		if s.redlockOnce(r, c, a) || try >= a.Retries {
			return
		}
		delay := retryDelay(s.sc.RandomSeed(), c.Name, s.of(c).tries)
		demo.Note(r, RetryDelay{Head: r.Head(c.Name, ""), Delay: delay, Max: MaxRetryDelay})
		r.Advance(delay)
	}
}

// retryDelay is the "random" delay after a client's failed attempt, from 0 to
// MaxRetryDelay ms: drawn from the scenario, the client and the attempt, so
// every run waits the same.
func retryDelay(scenario, client string, attempt int) int {
	sum := sha(scenario + "/" + client + "/" + strconv.Itoa(attempt) + "/retry")
	return int(binary.BigEndian.Uint32(sum[:4]) % (MaxRetryDelay + 1))
}

// redlockOnce is one attempt; it reports whether the client got the lock.
func (s *redisNodes) redlockOnce(r *demo.Run, c *demo.Client, a RedlockArgs) bool {
	s.of(c).tries++
	c.Value = lockValue(s.sc.RandomSeed(), c.Name, s.of(c).tries)
	t1 := r.Now()
	locked := 0
	for _, n := range s.nodes {
		sent := SetCommand{Key: a.Key, Value: c.Value, NX: true, PX: a.PX, Redlock: true}
		if !s.reach(r, c, n, func(h demo.Head) Command { sent.Head = h; return sent }) {
			continue
		}
		sent.Head = r.Head(c.Name, n.Name)
		sent.OK = n.Set(a.Key, c.Value, true, a.PX, r.Now())
		if sent.OK {
			locked++
			sent.Expiry = r.Now() + a.PX
		}
		demo.Note(r, sent)
	}
	q := Quorum{Locked: locked, Need: len(s.nodes)/2 + 1, TTL: a.PX, Elapsed: r.Now() - t1, Drift: a.PX/100 + 2}
	q.Validity = q.TTL - q.Elapsed - q.Drift
	h := r.Head(c.Name, "")
	if q.Held() {
		until := t1 + q.TTL - q.Drift
		r.Hold(c, until)
		demo.Note(r, RedlockResult{Head: h, Key: a.Key, Value: c.Value, Quorum: q, Expiry: until})
		return true
	}
	demo.Note(r, RedlockResult{Head: h, Key: a.Key, Value: c.Value, Quorum: q})
	r.LetGo(c) // it knows it failed, whatever it held before
	// Undo what was set, on every node: also those that did not say OK,
	// since a reply can be lost after the key was set.
	s.unlockAll(r, c, a.Key)
	return false
}

// unlockAll sends the compare-and-delete script to every node in turn, each
// costing a round trip or a timeout, as the acquisition did.
func (s *redisNodes) unlockAll(r *demo.Run, c *demo.Client, key string) {
	for _, n := range s.nodes {
		sent := UnlockScript{Key: key, Value: c.Value}
		if !s.reach(r, c, n, func(h demo.Head) Command { sent.Head = h; return sent }) {
			continue
		}
		sent.Head = r.Head(c.Name, n.Name)
		sent.OK = n.DelIfEq(key, c.Value, r.Now())
		if r.Logs() { // no rule reads an unlock's answer back
			r.Log(sent)
		}
	}
}

// reach sends one command of c's to node n and moves the clock on by what
// that costs. A node that is up answers after a round trip, and reach
// returns true for the caller to log the answer. A node that is down refuses
// the connection, which also takes a round trip. A node c is cut off from
// drops the packets, and c gives up after the timeout. Both are logged here,
// as NoAnswer with the command that went out.
func (s *redisNodes) reach(r *demo.Run, c *demo.Client, n *Node, sent func(demo.Head) Command) bool {
	cut := slices.Contains(s.of(c).cut, n.Name)
	wait := s.latency
	if cut {
		wait = s.timeout
	}
	r.Advance(wait)
	if n.Up && !cut {
		return true
	}
	if !r.Logs() {
		return false // no rule reads a command left unanswered back
	}
	h := r.Head(c.Name, n.Name)
	e := NoAnswer{Head: h, Sent: sent(h)}
	if cut {
		e.Waited = s.timeout
	}
	r.Log(e)
	return false
}

// logChange logs a node's change of state, when r keeps events no rule
// reads back: the finder's lean run would box it only to drop it.
// persists reports whether the nodes fsync every write to an append-only
// file (appendfsync always), so that one that dies keeps its keys.
func (s *redisNodes) persists() bool { return s.sc.Appendfsync == "always" }

// kept is a node change's kind, plain or with the keys kept on disk.
func (s *redisNodes) kept(plain, kept demo.Kind) demo.Kind {
	if s.persists() {
		return kept
	}
	return plain
}

func logChange(r *demo.Run, h demo.Head, what demo.Kind) {
	if r.Logs() {
		r.Log(NodeChange{Head: h, What: what})
	}
}

// redisson plays a Redisson client's lock calls against the one node.
func (s *redisNodes) redisson(r *demo.Run, c *demo.Client, a demo.Action) error {
	n := s.primary()
	h := r.Head(c.Name, n.Name)
	field := s.field(c.Name)
	var cmd Command
	var err error
	switch a.Verb {
	case RLock, RTryLock:
		cmd, err = s.rlock(r, c, n, a, RedissonLock{Head: h, Field: field, Try: a.Verb == RTryLock})
	case RRenew:
		cmd, err = s.rrenew(r, c, n, a, RedissonRenew{Head: h, Field: field})
	case RUnlock:
		s.runlock(r, c, n, a.Args.(KeyArgs).Key, field, h)
		return nil
	}
	if err != nil || cmd == nil {
		return err
	}
	if !n.Up {
		r.Log(NoAnswer{Head: h, Sent: cmd})
		return nil
	}
	r.Log(cmd)
	return nil
}

// rlock plays lock() or tryLock(): the lock script, which takes the lock
// when it is free, re-enters it when it is the client's own, and otherwise
// answers the holder's PTTL.
func (s *redisNodes) rlock(r *demo.Run, c *demo.Client, n *Node, a demo.Action, e RedissonLock) (Command, error) {
	t := a.Args.(TTLArgs)
	e.Key, e.Lease = t.Key, t.PX
	if a.Verb == RLock && c.Holds && c.Value != e.Field {
		return nil, &demo.ActionError{Action: a, Msg: c.Name + " holds another kind of lock"}
	}
	if n.Up {
		e.Left, e.OK = n.RLock(t.Key, e.Field, t.PX, r.Now())
		if !e.OK && a.Verb == RLock {
			// lock() would subscribe to the channel and wait: not modelled.
			return nil, &demo.ActionError{Action: a, Msg: "lock() would wait for the holder to let go; the model plays tryLock() (rtrylock) for that"}
		}
	}
	if e.OK {
		e.Expiry = r.Now() + t.PX
		if c.Holds {
			r.ExtendHold(c, e.Expiry) // re-entered: the same holding, renewed
		} else {
			s.taken(r, c, e.Field, t.PX)
		}
		s.of(c).lease = t.PX
		s.of(c).watchdog = true
	}
	return e, nil
}

// rrenew plays the watchdog's renewal, which a stop-the-world pause stops
// with the rest of the client.
func (s *redisNodes) rrenew(r *demo.Run, c *demo.Client, n *Node, a demo.Action, e RedissonRenew) (Command, error) {
	switch {
	case c.Paused:
		demo.Note(r, WatchdogSkipped{Head: e.Head})
		return nil, nil
	case !s.of(c).watchdog:
		return nil, &demo.ActionError{Action: a, Msg: c.Name + "'s watchdog is not running: it holds no lock, or a renewal found the lock gone"}
	}
	t := a.Args.(TTLArgs)
	e.Key, e.Lease = t.Key, t.PX
	if n.Up {
		e.OK = n.RRenew(t.Key, e.Field, t.PX, r.Now())
	}
	if e.OK {
		e.Expiry = r.Now() + t.PX
		r.ExtendHold(c, e.Expiry)
	} else {
		// Redisson cancels the renewal and only logs it: the client is not
		// told, and believes it holds the lock until it unlocks.
		s.of(c).watchdog = false
	}
	return e, nil
}

// runlock plays unlock(): the unlock script, answered from its latch if the
// call is retried, then the DEL of the latch.
func (s *redisNodes) runlock(r *demo.Run, c *demo.Client, n *Node, key, field string, h demo.Head) {
	k := s.of(c)
	k.unlocks++
	e := RedissonUnlock{Head: h, Key: key, Field: field, Lease: k.lease,
		Latch: RedissonLatch(key, requestID(s.sc.RandomSeed(), c.Name, k.unlocks))}
	if !n.Up {
		r.Log(NoAnswer{Head: h, Sent: e})
		return
	}
	var reply int
	reply, e.Found = n.RUnlock(key, field, e.Latch, k.lease, RedissonLatchTTL, r.Now())
	e.Released = e.Found && reply == 1
	if !e.Found || e.Released {
		// A nil answer throws IllegalMonitorStateException: the client
		// learns, too late, that the lock was not its own any more.
		r.LetGo(c)
		k.watchdog = false
	}
	r.Log(e)
	del := LatchDel{Head: h, Latch: e.Latch, OK: n.Del(e.Latch, r.Now())}
	demo.Note(r, del)
}

func (s *redisNodes) nodeAction(r *demo.Run, a demo.Action) error {
	targets := s.nodes
	if a.Who != "all" {
		n := s.node(a.Who)
		if n == nil {
			return &demo.ActionError{Action: a, Msg: "unknown node " + a.Who}
		}
		targets = []*Node{n}
	}
	for _, n := range targets {
		h := r.Head("", n.Name)
		switch a.Verb {
		case Down:
			// A node that goes down without persistence comes back empty.
			// Its lists are emptied, not dropped, so the finder's copies
			// that reuse them do not allocate them again. With
			// appendfsync always its keys are on disk.
			if n.Up {
				n.downAt = r.Now()
			}
			n.Up = false
			if !s.persists() {
				n.keys, n.backlog = n.keys[:0], n.backlog[:0]
			}
			logChange(r, h, s.kept(NodeDown, NodeDownKept))
		case Hold:
			n.hold = a.Args.(HoldArgs).MS
		case Up:
			if n.Up && a.Who == "all" {
				continue
			}
			if n.Up {
				// Only a node that went down comes back: a running node
				// keeps its keys.
				return &demo.ActionError{Action: a, Msg: n.Name + " is up already", JA: n.Name + " はすでに稼働している"}
			}
			if left := n.held(r.Now()); left > 0 {
				return &demo.ActionError{Action: a,
					Msg: fmt.Sprintf("%s stays down %d ms after its crash, a delayed restart: %d ms to go", n.Name, n.hold, left),
					JA:  fmt.Sprintf("%s は落ちてから %d ms は止めたままにする (遅延再起動)。あと %d ms", n.Name, n.hold, left)}
			}
			s.resync(n)
			n.Up = true
			logChange(r, h, s.kept(NodeUp, NodeUpKept))
			s.unblock(r, n)
		case Restart:
			// Down and up in one instant, as a crashed process that a
			// supervisor starts again before anyone fails over.
			if !n.Up || n.Role != "replica" {
				return &demo.ActionError{Action: a, Msg: n.Name + " restarts here only as an up replica (a primary restarting empty loses the lock in either position)"}
			}
			if !s.persists() {
				n.keys, n.backlog = n.keys[:0], n.backlog[:0]
			}
			logChange(r, h, s.kept(NodeDown, NodeDownKept))
			logChange(r, h, s.kept(NodeUp, NodeUpKept))
			s.resync(n)
			s.unblock(r, n)
		case Jump:
			by := a.Args.(ClockArgs).By
			n.Offset += by
			demo.Note(r, ClockJumped{Head: h, By: by})
			s.Elapse(r, r.Now())
		case Slew:
			ca := a.Args.(ClockArgs)
			n.Slew(ca.By, ca.Rate)
			demo.Note(r, ClockSlewing{Head: h, By: ca.By, Rate: ca.Rate})
		case Promote:
			if n.Role != "replica" {
				return &demo.ActionError{Action: a, Msg: n.Name + " is not a replica"}
			}
			for _, m := range s.nodes {
				if m.Role == "primary" {
					m.Role = "former-primary"
				}
			}
			n.Role = "primary"
			logChange(r, h, Promoted)
		case Replicate:
			rep := s.replicaOf(n)
			if n.Role != "primary" || !n.Up || rep == nil || !rep.Up {
				return &demo.ActionError{Action: a, Msg: n.Name + " cannot replicate: it must be an up primary with an up replica"}
			}
			shipped := Replication{Head: h, Shipped: n.ship(rep)}
			demo.Note(r, shipped)
		default:
			return &demo.ActionError{Action: a, Msg: "a Redis node does not " + string(a.Verb)}
		}
	}
	return nil
}

// elapse records the keys that ran out between since and now, at the time
// each ran out, and drops them.
func (s *redisNodes) Elapse(r *demo.Run, since int) {
	evs := r.Events()
	start := len(evs)
	for _, n := range s.nodes {
		n.slew(r.Now() - since)
		for i := 0; i < len(n.keys); {
			e := n.keys[i]
			if !n.expired(e, r.Now()) {
				i++
				continue
			}
			// When did it run out? On its own clock, or at a jump.
			at := min(max(e.wallAt+e.ttl-n.Offset, since), r.Now())
			if r.Logs() { // naming the key's owner hashes every client's values
				r.Log(KeyExpiry{Head: r.HeadAt(at, s.owner(r, e.value), n.Name), Key: e.key, Value: e.value})
			}
			n.keys = append(n.keys[:i], n.keys[i+1:]...)
		}
	}
	expired := r.Events()[start:]
	slices.SortStableFunc(expired, func(a, b demo.Event) int { return a.Header().At - b.Header().At })
}

// resync is a replica that came back empty following its primary again: a
// full sync copies every key the primary has, if the primary is up to send
// them. With the primary down it stays empty, and a failover promotes it so.
func (s *redisNodes) resync(n *Node) {
	p := s.primary()
	if n.Role != "replica" || p == nil || !p.Up {
		return
	}
	n.keys = append(n.keys[:0], p.keys...)
	p.backlog = p.backlog[:0]
}

// unblock ends the WAIT of every client blocked on n's primary, now that n,
// its replica, is back: the primary ships, and WAIT answers.
func (s *redisNodes) unblock(r *demo.Run, n *Node) {
	p := s.primary()
	if n.Role != "replica" || p == nil || !p.Up {
		return
	}
	clients := r.Clients()
	for i := range clients {
		c := &clients[i]
		if !c.Blocked {
			continue
		}
		p.ship(n)
		c.Blocked = false
		wait := blockedWaitOf(r.Events(), c.Name)
		e := WaitCommand{Head: r.Head(c.Name, p.Name), Replicas: wait.Replicas, Timeout: 0, Acked: 1}
		s.confirmed(r, c, e)
		r.Log(e)
	}
}

// blockedWaitOf returns the last BlockedWait of client among events.
func blockedWaitOf(events []demo.Event, client string) BlockedWait {
	for i := len(events) - 1; i >= 0; i-- {
		if b, ok := events[i].(BlockedWait); ok && b.Client == client {
			return b
		}
	}
	return BlockedWait{}
}

// forever finds a lock key that never expires and belongs to a dead client.
func (s *redisNodes) Forever(r *demo.Run) string {
	for _, n := range s.nodes {
		if !n.Up {
			continue
		}
		for _, e := range n.keys {
			if e.ttl != 0 || e.counter {
				continue // a counter is nobody's lock
			}
			if c := r.Client(s.owner(r, e.value)); c != nil && c.Crashed {
				return c.Name
			}
		}
	}
	return ""
}

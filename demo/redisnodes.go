package demo

import (
	"encoding/binary"
	"slices"
	"strconv"
)

// redisNodes plays the Redis family: one node, a primary with an asynchronous
// replica, or Redlock's independent nodes. Every client talks to the primary
// (the only node, or whichever of the pair is primary now), except a Redlock
// client, which asks every node in turn.
type redisNodes struct {
	nodes   []*Node
	latency int // Redlock: ms a reachable node takes to answer
	timeout int // Redlock: ms a client waits for a node before giving up
}

func newRedisNodes(sc *Scenario) *redisNodes {
	s := &redisNodes{latency: sc.Latency, timeout: sc.Timeout}
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

func (s *redisNodes) do(r *Run, a Action) error {
	if a.Verb.ByNode() {
		return s.nodeAction(r, a)
	}
	c := r.client(a.Who)
	switch a.Verb {
	case Redlock:
		s.redlock(r, c, a)
		return nil
	case RedlockUnlock:
		s.unlockAll(r, c, a.Key)
		r.letGo(c)
		return nil
	case RLock, RTryLock, RRenew, RUnlock:
		return s.redisson(r, c, a)
	}
	return s.command(r, c, a)
}

// command plays one command of a client against the primary (or only) node.
func (s *redisNodes) command(r *Run, c *Client, a Action) error {
	n := s.primary()
	h := r.head(c.Name, n.Name)
	value := c.Value
	if a.Verb == Set || a.Verb == SetNX {
		c.tries++ // every attempt draws a fresh random value
		value = lockValue(r.sc.ID, c.Name, c.tries)
	}
	var cmd Command
	switch a.Verb {
	case Set:
		cmd = SetCommand{Head: h, Key: a.Key, Value: value, NX: a.NX, PX: a.PX}
	case SetNX:
		cmd = SetNXCommand{Head: h, Key: a.Key, Value: value}
	case Expire:
		cmd = ExpireCommand{Head: h, Key: a.Key, Seconds: a.Seconds}
	case Del:
		cmd = DelCommand{Head: h, Key: a.Key}
	case Unlock:
		cmd = UnlockScript{Head: h, Key: a.Key, Value: value}
	case Extend:
		cmd = RenewScript{Head: h, Key: a.Key, Value: value, PX: a.PX}
	case Wait:
		cmd = WaitCommand{Head: h, Replicas: a.Replicas, Timeout: a.Timeout}
	default:
		return &ActionError{a, "a Redis node does not " + string(a.Verb)}
	}
	if !n.Up {
		r.log(NoAnswer{Head: h, Sent: cmd})
		return nil
	}
	switch e := cmd.(type) {
	case SetCommand:
		ttl := a.PX // 0: no expiry
		e.OK = n.Set(a.Key, value, a.NX, ttl, r.now)
		if e.OK {
			e.Expiry = r.taken(c, value, ttl)
		}
		cmd = e
	case SetNXCommand:
		e.OK = n.Set(a.Key, value, true, 0, r.now)
		if e.OK {
			r.taken(c, value, 0)
		}
		cmd = e
	case ExpireCommand:
		e.OK = n.Expire(a.Key, a.Seconds*1000, r.now)
		if e.OK && c.Holds {
			r.extendHold(c, r.now+a.Seconds*1000)
		}
		cmd = e
	case DelCommand:
		e.OK = n.Del(a.Key, r.now)
		r.letGo(c)
		cmd = e
	case UnlockScript:
		e.OK = n.DelIfEq(a.Key, value, r.now)
		r.letGo(c)
		cmd = e
	case RenewScript:
		e.OK = n.ExpireIfEq(a.Key, value, a.PX, r.now)
		if e.OK {
			e.Expiry = r.now + a.PX
			r.extendHold(c, e.Expiry)
		} else {
			r.letGo(c) // the watchdog finds the lock gone and tells the client
		}
		cmd = e
	case WaitCommand:
		// WAIT blocks until numreplicas replicas acknowledged what this
		// client wrote, or the timeout passes, and answers how many had by
		// then. A replica that is up acknowledges at once here. With
		// timeout 0 and too few replicas, the client is blocked for ever,
		// or until a replica comes back.
		if rep := s.replicaOf(n); rep != nil && rep.Up {
			n.ship(rep)
			e.Acked = 1
		}
		if e.Acked < e.Replicas {
			if e.Timeout == 0 {
				c.Blocked = true
				r.log(BlockedWait{Head: h, Replicas: e.Replicas})
				return nil
			}
			r.advance(e.Timeout)
			e.Head = r.head(c.Name, n.Name)
		}
		cmd = e
	}
	r.log(cmd)
	return nil
}

// taken records that c's SET went through with value: c now believes it
// holds the lock until the TTL runs out (-1: never), which it returns.
func (r *Run) taken(c *Client, value string, ttl int) int {
	c.Value = value
	until := -1
	if ttl > 0 {
		until = r.now + ttl
	}
	r.hold(c, until)
	return until
}

// MaxRetryDelay is the most a Redlock client waits, at random, before a new
// attempt: redlock-rb's 200 ms.
const MaxRetryDelay = 200

// redlock plays the Redlock algorithm for one client: note T1, ask every node
// in turn with a short timeout, then count. The clock moves while it asks,
// which is exactly what the validity arithmetic accounts for. Without the
// lock it unlocks every node, waits a random delay and, while it has retries
// left, tries again.
func (s *redisNodes) redlock(r *Run, c *Client, a Action) {
	for try := 0; ; try++ {
		if s.redlockOnce(r, c, a) || try >= a.Retries {
			return
		}
		delay := retryDelay(r.sc.ID, c.Name, c.tries)
		r.log(RetryDelay{Head: r.head(c.Name, ""), Delay: delay, Max: MaxRetryDelay})
		r.advance(delay)
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
func (s *redisNodes) redlockOnce(r *Run, c *Client, a Action) bool {
	c.tries++
	c.Value = lockValue(r.sc.ID, c.Name, c.tries)
	t1 := r.now
	locked := 0
	for _, n := range s.nodes {
		sent := SetCommand{Key: a.Key, Value: c.Value, NX: true, PX: a.PX, Redlock: true}
		if !s.reach(r, c, n, func(h Head) Command { sent.Head = h; return sent }) {
			continue
		}
		sent.Head = r.head(c.Name, n.Name)
		sent.OK = n.Set(a.Key, c.Value, true, a.PX, r.now)
		if sent.OK {
			locked++
			sent.Expiry = r.now + a.PX
		}
		r.log(sent)
	}
	q := Quorum{Locked: locked, Need: len(s.nodes)/2 + 1, TTL: a.PX, Elapsed: r.now - t1, Drift: a.PX/100 + 2}
	q.Validity = q.TTL - q.Elapsed - q.Drift
	h := r.head(c.Name, "")
	if q.Held() {
		until := t1 + q.TTL - q.Drift
		r.hold(c, until)
		r.log(RedlockResult{Head: h, Key: a.Key, Value: c.Value, Quorum: q, Expiry: until})
		return true
	}
	r.log(RedlockResult{Head: h, Key: a.Key, Value: c.Value, Quorum: q})
	r.letGo(c) // it knows it failed, whatever it held before
	// Undo what was set, on every node: also those that did not say OK,
	// since a reply can be lost after the key was set.
	s.unlockAll(r, c, a.Key)
	return false
}

// unlockAll sends the compare-and-delete script to every node in turn, each
// costing a round trip or a timeout, as the acquisition did.
func (s *redisNodes) unlockAll(r *Run, c *Client, key string) {
	for _, n := range s.nodes {
		sent := UnlockScript{Key: key, Value: c.Value}
		if !s.reach(r, c, n, func(h Head) Command { sent.Head = h; return sent }) {
			continue
		}
		sent.Head = r.head(c.Name, n.Name)
		sent.OK = n.DelIfEq(key, c.Value, r.now)
		r.log(sent)
	}
}

// reach sends one command of c's to node n and moves the clock on by what
// that costs. A node that is up answers after a round trip, and reach
// returns true for the caller to log the answer. A node that is down refuses
// the connection, which also takes a round trip. A node c is cut off from
// drops the packets, and c gives up after the timeout. Both are logged here,
// as NoAnswer with the command that went out.
func (s *redisNodes) reach(r *Run, c *Client, n *Node, sent func(Head) Command) bool {
	cut := slices.Contains(c.Cut, n.Name)
	wait := s.latency
	if cut {
		wait = s.timeout
	}
	r.advance(wait)
	if n.Up && !cut {
		return true
	}
	h := r.head(c.Name, n.Name)
	e := NoAnswer{Head: h, Sent: sent(h)}
	if cut {
		e.Waited = s.timeout
	}
	r.log(e)
	return false
}

// redisson plays a Redisson client's lock calls against the one node.
func (s *redisNodes) redisson(r *Run, c *Client, a Action) error {
	n := s.primary()
	h := r.head(c.Name, n.Name)
	field := redissonField(r.sc.ID, c.Name)
	if a.Verb == RRenew {
		switch {
		case c.Paused:
			r.log(WatchdogSkipped{Head: h})
			return nil
		case !c.watchdog:
			return &ActionError{a, c.Name + "'s watchdog is not running: it holds no lock, or a renewal found the lock gone"}
		}
	}
	if a.Verb == RLock && c.Holds && c.Value != field {
		return &ActionError{a, c.Name + " holds another kind of lock"}
	}
	var cmd Command
	switch a.Verb {
	case RLock, RTryLock:
		e := RedissonLock{Head: h, Key: a.Key, Field: field, Lease: a.PX, Try: a.Verb == RTryLock}
		if n.Up {
			e.Left, e.OK = n.RLock(a.Key, field, a.PX, r.now)
			if !e.OK && a.Verb == RLock {
				// lock() would subscribe to the channel and wait: not modelled.
				return &ActionError{a, "lock() would wait for the holder to let go; the model plays tryLock() (rtrylock) for that"}
			}
		}
		if e.OK {
			e.Expiry = r.now + a.PX
			if c.Holds {
				r.extendHold(c, e.Expiry) // re-entered: the same holding, renewed
			} else {
				r.taken(c, field, a.PX)
			}
			c.lease = a.PX
			c.watchdog = true
		}
		cmd = e
	case RRenew:
		e := RedissonRenew{Head: h, Key: a.Key, Field: field, Lease: a.PX}
		if n.Up {
			e.OK = n.RRenew(a.Key, field, a.PX, r.now)
		}
		if e.OK {
			e.Expiry = r.now + a.PX
			r.extendHold(c, e.Expiry)
		} else {
			// Redisson cancels the renewal and only logs it: the client is
			// not told, and believes it holds the lock until it unlocks.
			c.watchdog = false
		}
		cmd = e
	case RUnlock:
		c.unlocks++
		e := RedissonUnlock{Head: h, Key: a.Key, Field: field, Lease: c.lease,
			Latch: RedissonLatch(a.Key, requestID(r.sc.ID, c.Name, c.unlocks))}
		if !n.Up {
			r.log(NoAnswer{Head: h, Sent: e})
			return nil
		}
		var reply int
		reply, e.Found = n.RUnlock(a.Key, field, e.Latch, c.lease, RedissonLatchTTL, r.now)
		e.Released = e.Found && reply == 1
		if !e.Found || e.Released {
			// A nil answer throws IllegalMonitorStateException: the client
			// learns, too late, that the lock was not its own any more.
			r.letGo(c)
			c.watchdog = false
		}
		r.log(e)
		r.log(LatchDel{Head: h, Latch: e.Latch, OK: n.Del(e.Latch, r.now)})
		return nil
	}
	if !n.Up {
		r.log(NoAnswer{Head: h, Sent: cmd})
		return nil
	}
	r.log(cmd)
	return nil
}

func (s *redisNodes) nodeAction(r *Run, a Action) error {
	targets := s.nodes
	if a.Who != "all" {
		n := s.node(a.Who)
		if n == nil {
			return &ActionError{a, "unknown node " + a.Who}
		}
		targets = []*Node{n}
	}
	for _, n := range targets {
		h := r.head("", n.Name)
		switch a.Verb {
		case Down:
			// A node that goes down without persistence comes back empty.
			n.Up, n.keys, n.backlog = false, nil, nil
			r.log(NodeChange{Head: h, What: NodeDown})
		case Up:
			n.Up = true
			r.log(NodeChange{Head: h, What: NodeUp})
			s.unblock(r, n)
		case Jump:
			n.Offset += a.Jump
			r.log(ClockJumped{Head: h, By: a.Jump})
			s.elapse(r, r.now)
		case Slew:
			n.Slew(a.Jump, a.Rate)
			r.log(ClockSlewing{Head: h, By: a.Jump, Rate: a.Rate})
		case Promote:
			if n.Role != "replica" {
				return &ActionError{a, n.Name + " is not a replica"}
			}
			for _, m := range s.nodes {
				if m.Role == "primary" {
					m.Role = "former-primary"
				}
			}
			n.Role = "primary"
			r.log(NodeChange{Head: h, What: Promoted})
		case Replicate:
			rep := s.replicaOf(n)
			if n.Role != "primary" || !n.Up || rep == nil || !rep.Up {
				return &ActionError{a, n.Name + " cannot replicate: it must be an up primary with an up replica"}
			}
			r.log(Replication{Head: h, Shipped: n.ship(rep)})
		default:
			return &ActionError{a, "a Redis node does not " + string(a.Verb)}
		}
	}
	return nil
}

// elapse records the keys that ran out between since and now, at the time
// each ran out, and drops them.
func (s *redisNodes) elapse(r *Run, since int) {
	start := len(r.events)
	for _, n := range s.nodes {
		n.slew(r.now - since)
		for i := 0; i < len(n.keys); {
			e := n.keys[i]
			if !n.expired(e, r.now) {
				i++
				continue
			}
			// When did it run out? On its own clock, or at a jump.
			at := min(max(e.wallAt+e.ttl-n.Offset, since), r.now)
			r.log(KeyExpiry{Head: r.headAt(at, r.owner(e.value), n.Name), Key: e.key, Value: e.value})
			n.keys = append(n.keys[:i], n.keys[i+1:]...)
		}
	}
	expired := r.events[start:]
	slices.SortStableFunc(expired, func(a, b Event) int { return a.Header().At - b.Header().At })
}

// unblock ends the WAIT of every client blocked on n's primary, now that n,
// its replica, is back: the primary ships, and WAIT answers.
func (s *redisNodes) unblock(r *Run, n *Node) {
	p := s.primary()
	if n.Role != "replica" || p == nil || !p.Up {
		return
	}
	for i := range r.clients {
		c := &r.clients[i]
		if !c.Blocked {
			continue
		}
		p.ship(n)
		c.Blocked = false
		wait := blockedWaitOf(r.events, c.Name)
		r.log(WaitCommand{Head: r.head(c.Name, p.Name), Replicas: wait.Replicas, Timeout: 0, Acked: 1})
	}
}

// blockedWaitOf returns the last BlockedWait of client among events.
func blockedWaitOf(events []Event, client string) BlockedWait {
	for i := len(events) - 1; i >= 0; i-- {
		if b, ok := events[i].(BlockedWait); ok && b.Client == client {
			return b
		}
	}
	return BlockedWait{}
}

// forever finds a lock key that never expires and belongs to a dead client.
func (s *redisNodes) forever(r *Run) string {
	for _, n := range s.nodes {
		if !n.Up {
			continue
		}
		for _, e := range n.keys {
			if e.ttl != 0 {
				continue
			}
			if c := r.client(r.owner(e.value)); c != nil && c.Crashed {
				return c.Name
			}
		}
	}
	return ""
}

func (s *redisNodes) show(r *Run, f *Frame) {
	for _, n := range s.nodes {
		ns := NodeState{Name: n.Name, Role: n.Role, Up: n.Up, Offset: n.Offset, Slew: n.slewLeft, SlewRate: n.slewRate}
		for _, k := range n.Keys(r.now) {
			e, _ := n.lookup(k, r.now)
			ttl, _ := n.TTL(k, r.now)
			ns.Keys = append(ns.Keys, KeyState{Key: k, Value: e.value, Owner: r.owner(e.value), TTL: ttl, Count: e.count})
		}
		f.Nodes = append(f.Nodes, ns)
	}
}

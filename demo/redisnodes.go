package demo

import "slices"

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
	case Redlock, RedlockUnlock:
		s.redlock(r, c, a)
		return nil
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
		// client wrote. The model ships the backlog if the replica is up.
		if rep := s.replicaOf(n); rep != nil && rep.Up {
			n.ship(rep)
			e.Acked = 1
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

// redlock plays the Redlock algorithm for one client: note T1, ask every node
// in turn with a short timeout, then count. The clock moves while it asks,
// which is exactly what the validity arithmetic accounts for.
func (s *redisNodes) redlock(r *Run, c *Client, a Action) {
	if a.Verb == Redlock {
		c.tries++
		c.Value = lockValue(r.sc.ID, c.Name, c.tries)
	}
	t1 := r.now
	locked := 0
	for _, n := range s.nodes {
		// Each request takes time, and keys may run out meanwhile.
		reachable := n.Up && !slices.Contains(c.Cut, n.Name)
		wait := s.latency
		if !reachable {
			wait = s.timeout
		}
		r.advance(wait)
		h := r.head(c.Name, n.Name)
		var sent Command
		if a.Verb == RedlockUnlock {
			sent = UnlockScript{Head: h, Key: a.Key, Value: c.Value}
		} else {
			sent = SetCommand{Head: h, Key: a.Key, Value: c.Value, NX: true, PX: a.PX, Redlock: true}
		}
		if !reachable {
			r.log(NoAnswer{Head: h, Sent: sent, Waited: s.timeout})
			continue
		}
		switch e := sent.(type) {
		case UnlockScript:
			e.OK = n.DelIfEq(a.Key, c.Value, r.now)
			sent = e
		case SetCommand:
			e.OK = n.Set(a.Key, c.Value, true, a.PX, r.now)
			if e.OK {
				locked++
				e.Expiry = r.now + a.PX
			}
			sent = e
		}
		r.log(sent)
	}
	if a.Verb == RedlockUnlock {
		r.letGo(c)
		return
	}
	q := Quorum{Locked: locked, Need: len(s.nodes)/2 + 1, TTL: a.PX, Elapsed: r.now - t1, Drift: a.PX/100 + 2}
	q.Validity = q.TTL - q.Elapsed - q.Drift
	h := r.head(c.Name, "")
	if q.Held() {
		until := t1 + q.TTL - q.Drift
		r.hold(c, until)
		r.log(RedlockResult{Head: h, Key: a.Key, Value: c.Value, Quorum: q, Expiry: until})
		return
	}
	r.log(RedlockResult{Head: h, Key: a.Key, Value: c.Value, Quorum: q})
	r.letGo(c) // it knows it failed, whatever it held before
	// Without the lock, undo what was set, on every node: also those that
	// failed to answer, since they may have set the key after all.
	for _, n := range s.nodes {
		if n.Up && !slices.Contains(c.Cut, n.Name) {
			if n.DelIfEq(a.Key, c.Value, r.now) {
				r.log(UnlockScript{Head: r.head(c.Name, n.Name), Key: a.Key, Value: c.Value, OK: true})
			}
		}
	}
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
		case Jump:
			n.Offset += a.Jump
			r.log(ClockJumped{Head: h, By: a.Jump})
			s.elapse(r, r.now)
		case Monotonic:
			n.Monotonic = true
			r.log(NodeChange{Head: h, What: MonotonicOn})
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
		for i := 0; i < len(n.keys); {
			e := n.keys[i]
			if !n.expired(e, r.now) {
				i++
				continue
			}
			// When did it run out? On its own clock, or at a jump.
			at := e.setAt + e.ttl
			if !n.Monotonic {
				at = e.wallAt + e.ttl - n.Offset
			}
			at = min(max(at, since), r.now)
			r.log(KeyExpiry{Head: r.headAt(at, r.owner(e.value), n.Name), Key: e.key, Value: e.value})
			n.keys = append(n.keys[:i], n.keys[i+1:]...)
		}
	}
	expired := r.events[start:]
	slices.SortStableFunc(expired, func(a, b Event) int { return a.Header().At - b.Header().At })
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
		ns := NodeState{Name: n.Name, Role: n.Role, Up: n.Up, Offset: n.Offset, Monotonic: n.Monotonic}
		for _, k := range n.Keys(r.now) {
			v, _ := n.Get(k, r.now)
			ttl, _ := n.TTL(k, r.now)
			ns.Keys = append(ns.Keys, KeyState{Key: k, Value: v, Owner: r.owner(v), TTL: ttl})
		}
		f.Nodes = append(f.Nodes, ns)
	}
}

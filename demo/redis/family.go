// Package redis is the Redis family: one Redis node, a primary with an
// asynchronous replica, or Redlock's independent nodes, with the commands a
// careful client sends (SET NX PX, the compare-and-delete script, WAIT) and
// Redisson's lock scripts. Its events are the commands word for word, so the
// conformance suite can send them to a real redis-server.
package redis

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// The family's kinds of store.
const (
	SingleStore     demo.StoreKind = "redis"      // one Redis node
	ReplicatedStore demo.StoreKind = "replicated" // a primary and an asynchronous replica
	RedlockStore    demo.StoreKind = "redlock"    // Redlock's N independent nodes
)

// The family's verbs.
const (
	Set    demo.Verb = "set"
	SetNX  demo.Verb = "setnx"
	Expire demo.Verb = "expire"
	Incr   demo.Verb = "incr"
	Del    demo.Verb = "del"
	Unlock demo.Verb = "unlock"
	Extend demo.Verb = "extend"
	Wait   demo.Verb = "wait"

	RLock    demo.Verb = "rlock"
	RTryLock demo.Verb = "rtrylock"
	RRenew   demo.Verb = "rrenew"
	RUnlock  demo.Verb = "runlock"

	RedlockLock   demo.Verb = "redlock"
	RedlockUnlock demo.Verb = "redlock-unlock"
	Cut           demo.Verb = "cut"
	Heal          demo.Verb = "heal"

	Down      demo.Verb = "down"
	Up        demo.Verb = "up"
	Hold      demo.Verb = "hold-down"
	Jump      demo.Verb = "jump"
	Slew      demo.Verb = "slew"
	Promote   demo.Verb = "promote"
	Restart   demo.Verb = "restart"
	Replicate demo.Verb = "replicate"
)

var (
	onePrimary = []demo.StoreKind{SingleStore, ReplicatedStore} // a client talks to the primary
	single     = []demo.StoreKind{SingleStore}
	redlock    = []demo.StoreKind{RedlockStore}
	replicated = []demo.StoreKind{ReplicatedStore}
)

// Verbs is the family's verb table.
var Verbs = []demo.VerbSpec{
	{Verb: Set, Form: "KEY nx [px MS]", Help: "SET KEY <random value> NX [PX MS]", Kinds: onePrimary, Parse: parseSet},
	{Verb: SetNX, Form: "KEY", Help: "SETNX KEY <random value>: no TTL", Kinds: onePrimary, Parse: parseKey},
	{Verb: Expire, Form: "KEY SECONDS", Help: "EXPIRE KEY SECONDS", Kinds: onePrimary, Parse: parseExpire},
	{Verb: Incr, Form: "KEY", Help: "INCR KEY: the counter's next number becomes the client's token", Kinds: onePrimary, Parse: parseKey},
	{Verb: Del, Form: "KEY", Help: "a plain DEL, whoever's lock it is", Kinds: onePrimary, Parse: parseKey},
	{Verb: Unlock, Form: "KEY", Help: "the compare-and-delete script", Kinds: onePrimary, Parse: parseKey},
	{Verb: Extend, Form: "KEY MS", Help: "renew the TTL if the lock is still the client's", Kinds: onePrimary, Parse: parseTTL},
	{Verb: Wait, Form: "NUMREPLICAS TIMEOUT", Help: "WAIT NUMREPLICAS TIMEOUT", Kinds: replicated, Parse: parseWait},
	{Verb: Eval, Form: "NAME KEY [ARG...]", Help: "EVAL the scenario's script NAME with KEYS[1] = KEY and ARGV = the ARGs ($value: the client's lock value)", Kinds: onePrimary, Parse: parseEval},

	{Verb: RLock, Form: "KEY MS", Help: "Redisson's lock(): the lock script with lease MS", Kinds: single, Parse: parseTTL},
	{Verb: RTryLock, Form: "KEY MS", Help: "Redisson's tryLock(): the same script, once", Kinds: single, Parse: parseTTL},
	{Verb: RRenew, Form: "KEY MS", Help: "the watchdog's renewal script", Kinds: single, Paused: true, Parse: parseTTL},
	{Verb: RUnlock, Form: "KEY", Help: "Redisson's unlock(): the unlock script, then DEL of its latch", Kinds: single, Parse: parseKey},

	{Verb: RedlockLock, Form: "KEY px MS [retry N]", Help: "the whole Redlock acquisition", Kinds: redlock, Parse: parseRedlock},
	{Verb: RedlockUnlock, Form: "KEY", Help: "the compare-and-delete script on every node", Kinds: redlock, Parse: parseKey},
	{Verb: Cut, Form: "NODE...", Help: "the network drops the client's packets to those nodes", Kinds: redlock, Parse: parseNodes},
	{Verb: Heal, Help: "the client reaches every node again", Kinds: redlock},

	{Verb: Down, Node: true, Help: "the node stops answering and loses what it had not persisted"},
	{Verb: Up, Node: true, Help: "the node comes back"},
	{Verb: Hold, Form: "MS", Node: true, Help: "the operator's delayed restart: once down, the node comes back no sooner than MS later", Parse: parseHold},
	{Verb: Jump, Form: "MS", Node: true, Help: "the node's wall clock is stepped forward at once", Parse: parseJump},
	{Verb: Slew, Form: "MS PPM", Node: true, Help: "the node's wall clock is corrected by MS, at most PPM of elapsed time", Parse: parseSlew},
	{Verb: Restart, Node: true, Help: "the node dies and starts again at once: it comes back with what it persisted (nothing, unless appendfsync always), and a replica copies its primary again if the primary is up", Kinds: replicated},
	{Verb: Promote, Node: true, Help: "the replica becomes the primary", Kinds: replicated},
	{Verb: Replicate, Node: true, Help: "the primary ships what the replica lacks", Kinds: replicated},
}

// Family is the Redis family's entry in the registry.
var Family = &demo.Family{
	Name:  "redis",
	Kinds: []demo.StoreKind{SingleStore, ReplicatedStore, RedlockStore},
	Unit:  "ms",
	Verbs: Verbs,
	New:   func(sc *demo.Scenario) demo.Store { return newRedisNodes(sc) },
	Nodes: nodeNames,
	Lanes: func(sc *demo.Scenario) []demo.Lane {
		var lanes []demo.Lane
		for _, n := range nodeNames(sc) {
			lanes = append(lanes, demo.Lane{Key: n, Label: n})
		}
		return lanes
	},
	Check:      check,
	Offers:     offers,
	Duty:       duty,
	Transcript: transcript,
	Narrate:    narrate,
	Configure:  configure,
	Failures:   []demo.ViolationKind{RenewedOther},
	Properties: properties,
}

// nodeNames are the nodes' names, in order: n of them for Redlock, the
// fixed cast for the others.
func nodeNames(sc *demo.Scenario) []string {
	switch sc.Store {
	case ReplicatedStore:
		return []string{"primary", "replica"}
	case RedlockStore:
		names := make([]string, sc.Nodes)
		for i := range names {
			names[i] = "redis" + strconv.Itoa(i+1)
		}
		return names
	}
	return []string{"redis"}
}

// check gives Redlock its defaults (five nodes, 2 ms to answer, 50 ms before
// giving up) and keeps the other kinds from setting them.
func check(sc *demo.Scenario) error {
	switch sc.Appendfsync {
	case "", "always":
	case "no":
		sc.Appendfsync = ""
	default:
		return fmt.Errorf("appendfsync: %q; the demo plays no (its default: nothing on disk) or always", sc.Appendfsync)
	}
	if sc.Pool != 0 {
		return fmt.Errorf("pool: %d; a pooler of 1 to 9 server connections is for the database store only", sc.Pool)
	}
	if sc.Store != RedlockStore {
		if sc.Nodes != 0 || sc.Latency != 0 || sc.Timeout != 0 {
			return errors.New("nodes, latency and timeout are for the redlock store only")
		}
		return checkScripts(sc)
	}
	if sc.Nodes == 0 {
		sc.Nodes = 5
	}
	if sc.Nodes < 1 || sc.Nodes > 9 {
		return fmt.Errorf("nodes: %d; Redlock here takes 1 to 9 nodes", sc.Nodes)
	}
	if sc.Latency == 0 {
		sc.Latency = 2
	}
	if sc.Timeout == 0 {
		sc.Timeout = 50
	}
	if sc.Latency < 0 || sc.Timeout < 0 || sc.Latency > 10000 || sc.Timeout > 10000 {
		return errors.New("latency and timeout are milliseconds from 1 to 10000")
	}
	return nil
}

// The verbs' arguments.
type (
	// KeyArgs: the lock's key.
	KeyArgs struct{ Key string }
	// SetArgs: SET KEY NX [PX MS]; PX 0 for none.
	SetArgs struct {
		Key string
		NX  bool
		PX  int
	}
	// ExpireArgs: EXPIRE KEY SECONDS.
	ExpireArgs struct {
		Key     string
		Seconds int
	}
	// TTLArgs: a key and a TTL in ms (extend, Redisson's scripts).
	TTLArgs struct {
		Key string
		PX  int
	}
	// WaitArgs: WAIT NUMREPLICAS TIMEOUT; timeout 0 blocks until they do.
	WaitArgs struct{ Replicas, Timeout int }
	// RedlockArgs: the key, the TTL, and how many new attempts after a
	// failed one.
	RedlockArgs struct {
		Key     string
		PX      int
		Retries int
	}
	// NodesArgs: the nodes a client is cut off from.
	NodesArgs struct{ Nodes []string }
	// ClockArgs: how far a node's wall clock moves, in ms, and for a slew
	// the most its rate changes, in ppm.
	ClockArgs struct{ By, Rate int }
)

// ttl reads a TTL that must be at least 1.
func ttl(s, what, floor string) (int, error) {
	n, err := demo.Number(s, what)
	if err == nil && n == 0 {
		err = errors.New(floor)
	}
	return n, err
}

func want(form string) error { return fmt.Errorf("want %q", form) }

func parseKey(w []string) (any, error) {
	if len(w) != 1 {
		return nil, want("KEY")
	}
	return KeyArgs{w[0]}, nil
}

// parseSet reads SET KEY NX [PX MS]: the options in either case, as Redis
// takes them.
func parseSet(w []string) (any, error) {
	if len(w) < 1 {
		return nil, want("KEY nx [px MS]")
	}
	a := SetArgs{Key: w[0]}
	for i := 1; i < len(w); i++ {
		switch strings.ToLower(w[i]) {
		case "nx":
			a.NX = true
		case "px":
			if i+1 >= len(w) {
				return nil, want("KEY nx [px MS]")
			}
			i++
			var err error
			if a.PX, err = ttl(w[i], "PX", "PX must be at least 1 ms"); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("unknown SET option %q (this demo knows NX and PX)", w[i])
		}
	}
	return a, nil
}

func parseExpire(w []string) (any, error) {
	if len(w) != 2 {
		return nil, want("KEY N")
	}
	n, err := ttl(w[1], "TTL", "the TTL must be at least 1")
	return ExpireArgs{w[0], n}, err
}

func parseTTL(w []string) (any, error) {
	if len(w) != 2 {
		return nil, want("KEY N")
	}
	n, err := ttl(w[1], "TTL", "the TTL must be at least 1")
	return TTLArgs{w[0], n}, err
}

func parseWait(w []string) (any, error) {
	if len(w) != 2 {
		return nil, want("NUMREPLICAS TIMEOUT")
	}
	n, err := demo.Number(w[0], "replica count")
	if err != nil {
		return nil, err
	}
	t, err := demo.Number(w[1], "timeout")
	return WaitArgs{n, t}, err
}

func parseRedlock(w []string) (any, error) {
	if len(w) != 3 && len(w) != 5 || strings.ToLower(w[1]) != "px" ||
		len(w) == 5 && strings.ToLower(w[3]) != "retry" {
		return nil, want("KEY px MS [retry N]")
	}
	a := RedlockArgs{Key: w[0]}
	var err error
	if a.PX, err = ttl(w[2], "PX", "PX must be at least 1 ms"); err == nil && len(w) == 5 {
		if a.Retries, err = demo.Number(w[4], "retry count"); err == nil && a.Retries > 10 {
			err = errors.New("retry: at most 10 new attempts")
		}
	}
	return a, err
}

func parseNodes(w []string) (any, error) {
	if len(w) == 0 {
		return nil, want("NODE...")
	}
	return NodesArgs{w}, nil
}

func parseJump(w []string) (any, error) {
	if len(w) != 1 {
		return nil, want("MS")
	}
	n, err := demo.Number(w[0], "jump")
	return ClockArgs{By: n}, err
}

// HoldArgs: how long a node that went down stays down at least, in ms.
type HoldArgs struct{ MS int }

func parseHold(w []string) (any, error) {
	if len(w) != 1 {
		return nil, want("MS")
	}
	n, err := demo.Number(w[0], "hold")
	return HoldArgs{MS: n}, err
}

func parseSlew(w []string) (any, error) {
	if len(w) != 2 {
		return nil, want("MS PPM")
	}
	n, err := demo.Number(w[0], "correction")
	if err != nil {
		return nil, err
	}
	rate, err := ttl(w[1], "slew rate", "the slew rate must be at least 1 ppm")
	return ClockArgs{By: n, Rate: rate}, err
}

// State is the nodes as a frame shows them.
type State struct{ Nodes []NodeState }

// Of returns the Redis nodes' state in f, if f has one.
func Of(f demo.Frame) (State, bool) {
	s, ok := f.Store.(State)
	return s, ok
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
	Counter    bool   // a number made by INCR, not a lock
	// Count is a Redisson lock's hold count: the key is then a hash whose
	// one field, Value, is the holder's id; 0 for a plain string key.
	Count int
	// Hash: the key is such a hash (a script may leave its count at 0).
	Hash bool
}

func (s *redisNodes) State(r *demo.Run) any {
	var st State
	for _, n := range s.nodes {
		ns := NodeState{Name: n.Name, Role: n.Role, Up: n.Up, Offset: n.Offset, Slew: n.slewLeft, SlewRate: n.slewRate}
		for _, k := range n.Keys(r.Now()) {
			e, _ := n.lookup(k, r.Now())
			ttl, _ := n.TTL(k, r.Now())
			ks := KeyState{Key: k, Value: e.value, TTL: ttl, Count: e.count, Counter: e.counter, Hash: e.hash}
			if !e.counter {
				ks.Owner = s.owner(r, e.value)
			}
			ns.Keys = append(ns.Keys, ks)
		}
		st.Nodes = append(st.Nodes, ns)
	}
	return st
}

// owner returns the client whose random value is v. A client draws a fresh
// value for every attempt; the values are made from the scenario, the client
// and the attempt, so they can be found again without keeping a list of
// them.
func (s *redisNodes) owner(r *demo.Run, v string) string {
	if v == "" {
		return ""
	}
	for _, c := range r.Clients() {
		if c.Value == v || s.field(c.Name) == v {
			return c.Name
		}
	}
	for _, c := range r.Clients() {
		for try := 1; try < s.of(&c).tries; try++ {
			if lockValue(s.sc.RandomSeed(), c.Name, try) == v {
				return c.Name
			}
		}
	}
	return ""
}

// transcript writes each node's line: up or down, its role and clock, and
// its keys with their owners and TTLs.
func transcript(b *strings.Builder, f *demo.Frame) bool {
	for _, n := range f.Store.(State).Nodes {
		var keys []string
		for _, k := range n.Keys {
			ttl := "no TTL"
			if k.TTL >= 0 {
				ttl = fmt.Sprintf("TTL %dms", k.TTL)
			}
			value := demo.Short(k.Value)
			if k.Hash {
				value = fmt.Sprintf("{%s -> %d}", value, k.Count)
			}
			owner := k.Owner
			if k.Counter {
				owner = "counter"
			}
			keys = append(keys, fmt.Sprintf("%s=%s (%s, %s)", k.Key, value, owner, ttl))
		}
		state := "up"
		if !n.Up {
			state = "down"
		}
		if n.Role != "" {
			state += " " + n.Role
		}
		if n.Offset != 0 {
			state += fmt.Sprintf(" clock+%dms", n.Offset)
		}
		if n.Slew != 0 {
			state += fmt.Sprintf(" slewing %dms to go at %dppm", n.Slew, n.SlewRate)
		}
		if len(keys) == 0 {
			keys = []string{"empty"}
		}
		fmt.Fprintf(b, "  %s: %s, %s\n", n.Name, state, strings.Join(keys, ", "))
	}
	return false
}

// NodeList names the nodes of a cut, for the loader's check that they exist.
func (a NodesArgs) NodeList() []string { return a.Nodes }

// configure is a lab's setting of the nodes' persistence: appendfsync no
// or always, as redis.conf writes it (check reads "no" as the default).
func configure(sc *demo.Scenario, name, value string) bool {
	if name != "appendfsync" || value != "no" && value != "always" {
		return false
	}
	sc.Appendfsync = value
	return true
}

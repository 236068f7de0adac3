package demo

import (
	"slices"
	"strconv"
)

// StoreKind is what lends the lock in a scenario. Each kind is played by a
// Store type of its own (store.go); the views ask the kind how to draw it.
type StoreKind string

// The store kinds. The chapter's lock service counts time in ticks; the
// Redis family counts it in milliseconds, as its commands do.
const (
	LockServiceStore StoreKind = "lockservice" // the chapter's LockService
	RedisStore       StoreKind = "redis"       // one Redis node
	ReplicatedStore  StoreKind = "replicated"  // a primary and an asynchronous replica
	RedlockStore     StoreKind = "redlock"     // Redlock's N independent nodes
	DatabaseStore    StoreKind = "database"    // one PostgreSQL server (sql.go)
	ZooKeeperStore   StoreKind = "zookeeper"   // a consensus service: znodes and sessions
	EtcdStore        StoreKind = "etcd"        // a consensus service: keys, revisions and leases
	ConsulStore      StoreKind = "consul"      // a consensus service: sessions with a lock-delay
)

// StoreKinds lists every kind, in the order an error message names them.
var StoreKinds = []StoreKind{LockServiceStore, RedisStore, ReplicatedStore, RedlockStore, ZooKeeperStore, EtcdStore, ConsulStore, DatabaseStore}

// Valid reports whether k is a kind the engine can play.
func (k StoreKind) Valid() bool { return slices.Contains(StoreKinds, k) }

// Unit is the kind's unit of time: "tick" for the lock service, "ms" for the
// Redis family, whose TTLs the real commands give in milliseconds.
func (k StoreKind) Unit() string {
	if k == LockServiceStore {
		return "tick"
	}
	return "ms"
}

// HasNodes reports whether the store is made of named nodes (the Redis
// family) rather than one service whose agreement is assumed.
func (k StoreKind) HasNodes() bool { return k != LockServiceStore && !k.Consensus() }

// Consensus reports whether the store is a consensus service with sessions,
// drawn as its own panel.
func (k StoreKind) Consensus() bool {
	return k == ZooKeeperStore || k == EtcdStore || k == ConsulStore
}

// NodeNames returns the names of the store's nodes, in order: n of them for
// Redlock, the fixed cast for the others, none for the lock service.
func (k StoreKind) NodeNames(n int) []string {
	switch k {
	case RedisStore:
		return []string{"redis"}
	case ReplicatedStore:
		return []string{"primary", "replica"}
	case DatabaseStore:
		return []string{"postgres"}
	case RedlockStore:
		names := make([]string, n)
		for i := range names {
			names[i] = "redis" + strconv.Itoa(i+1)
		}
		return names
	}
	return nil
}

// Takes reports whether a store of kind k can play verb v.
func (k StoreKind) Takes(v Verb) bool {
	spec, ok := verbs[v]
	return ok && (spec.stores == nil || slices.Contains(spec.stores, k))
}

// Verb is what an action does.
type Verb string

// The actions. Each names who does it first: a client, a node, or nobody
// (tick). The comments give the form written in scenarios.yaml.
const (
	Tick Verb = "tick" // tick N: the clock moves N forward

	// Any client.
	Write  Verb = "write"  // C write VALUE: with the token (or value) C believes it holds
	Pause  Verb = "pause"  // C pause: a stop-the-world GC, say; C does nothing until resume
	Resume Verb = "resume" // C resume: C carries on, believing what it believed before
	Crash  Verb = "crash"  // C crash: C dies and never comes back
	Cut    Verb = "cut"    // C cut NODE...: the network drops C's packets to those nodes
	Heal   Verb = "heal"   // C heal: C reaches every node again

	// A client of the lock service.
	Acquire Verb = "acquire" // C acquire LEASE
	Renew   Verb = "renew"   // C renew LEASE
	Release Verb = "release" // C release

	// A client of one Redis node or a replicated pair (the primary answers).
	Set    Verb = "set"    // C set KEY nx [px MS]: SET KEY <random value> NX [PX MS]
	SetNX  Verb = "setnx"  // C setnx KEY: SETNX KEY <random value>
	Expire Verb = "expire" // C expire KEY SECONDS
	Del    Verb = "del"    // C del KEY: a plain DEL, whoever's lock it is
	Unlock Verb = "unlock" // C unlock KEY: the compare-and-delete script
	Extend Verb = "extend" // C extend KEY MS: renew the TTL if the lock is still C's
	Wait   Verb = "wait"   // C wait NUMREPLICAS TIMEOUT

	// A Redisson client of one Redis node: the lock is a hash whose field is
	// the holder's id and whose value counts re-entries.
	RLock    Verb = "rlock"    // C rlock KEY MS: lock(), the lock script with lease MS
	RTryLock Verb = "rtrylock" // C rtrylock KEY MS: tryLock(), the same script, once
	RRenew   Verb = "rrenew"   // C rrenew KEY MS: the watchdog's renewal script
	RUnlock  Verb = "runlock"  // C runlock KEY: unlock(), the unlock script, then DEL of its latch

	// A client of Redlock.
	Redlock       Verb = "redlock"        // C redlock KEY px MS [retry N]: the whole Redlock acquisition
	RedlockUnlock Verb = "redlock-unlock" // C redlock-unlock KEY: the script on every node

	// A client of the database.
	SQL Verb = "sql" // C sql [conn N] STATEMENT: one SQL statement, sent on C's connection (its Nth)
	// A client of a consensus service (zookeeper, etcd, consul).
	Session   Verb = "session"   // C session MS [delay MS]: open a session (lease) with that timeout
	Create    Verb = "create"    // C create PATH: a persistent znode
	Lock      Verb = "lock"      // C lock PATH [herd]: the service's lock recipe; herd watches the parent
	Reconnect Verb = "reconnect" // C reconnect: the client hears from the service after a silence

	// A node ("all" for every node).
	Down      Verb = "down"      // NODE down: it stops answering and loses what it had not persisted
	Up        Verb = "up"        // NODE up
	Jump      Verb = "jump"      // NODE jump MS: its wall clock is stepped forward at once
	Slew      Verb = "slew"      // NODE slew MS PPM: its wall clock is corrected by MS, at most PPM of elapsed time
	Promote   Verb = "promote"   // NODE promote: the replica becomes the primary
	Replicate Verb = "replicate" // NODE replicate: the primary ships what the replica lacks
)

// verbs says, for each verb, who performs it and with which stores.
var verbs = map[Verb]struct {
	node   bool        // performed by a node, not a client
	stores []StoreKind // the stores it works with; nil for any
}{
	Tick: {}, Write: {}, Pause: {}, Resume: {}, Crash: {},
	Cut:  {stores: []StoreKind{RedlockStore}},
	Heal: {stores: []StoreKind{RedlockStore}},
	// The database store lends the chapter's lock service too, so that its
	// tokens can be checked by a table (sql.go).
	Acquire:   {stores: []StoreKind{LockServiceStore, DatabaseStore}},
	Renew:     {stores: []StoreKind{LockServiceStore, DatabaseStore}},
	Release:   {stores: []StoreKind{LockServiceStore, DatabaseStore}},
	Set:       {stores: []StoreKind{RedisStore, ReplicatedStore}},
	SetNX:     {stores: []StoreKind{RedisStore, ReplicatedStore}},
	Expire:    {stores: []StoreKind{RedisStore, ReplicatedStore}},
	Del:       {stores: []StoreKind{RedisStore, ReplicatedStore}},
	Unlock:    {stores: []StoreKind{RedisStore, ReplicatedStore, ZooKeeperStore, EtcdStore, ConsulStore}},
	Session:   {stores: []StoreKind{ZooKeeperStore, EtcdStore, ConsulStore}},
	Create:    {stores: []StoreKind{ZooKeeperStore}},
	Lock:      {stores: []StoreKind{ZooKeeperStore, EtcdStore, ConsulStore}},
	Reconnect: {stores: []StoreKind{ZooKeeperStore, EtcdStore, ConsulStore}},
	Extend:    {stores: []StoreKind{RedisStore, ReplicatedStore}},
	Wait:      {stores: []StoreKind{ReplicatedStore}},
	RLock:     {stores: []StoreKind{RedisStore}}, RTryLock: {stores: []StoreKind{RedisStore}},
	RRenew: {stores: []StoreKind{RedisStore}}, RUnlock: {stores: []StoreKind{RedisStore}},
	Redlock: {stores: []StoreKind{RedlockStore}}, RedlockUnlock: {stores: []StoreKind{RedlockStore}},
	SQL:       {stores: []StoreKind{DatabaseStore}},
	Down:      {node: true, stores: []StoreKind{RedisStore, ReplicatedStore, RedlockStore}},
	Up:        {node: true, stores: []StoreKind{RedisStore, ReplicatedStore, RedlockStore}},
	Jump:      {node: true, stores: []StoreKind{RedisStore, ReplicatedStore, RedlockStore}},
	Slew:      {node: true, stores: []StoreKind{RedisStore, ReplicatedStore, RedlockStore}},
	Promote:   {node: true, stores: []StoreKind{ReplicatedStore}},
	Replicate: {node: true, stores: []StoreKind{ReplicatedStore}},
}

// ByNode reports whether a node performs v (a client performs the others;
// nobody performs tick).
func (v Verb) ByNode() bool { return verbs[v].node }

// Verbs returns every verb, sorted, for messages that list them.
func Verbs() []Verb {
	vs := make([]Verb, 0, len(verbs))
	for v := range verbs {
		vs = append(vs, v)
	}
	slices.Sort(vs)
	return vs
}

// Action is one line of a move, such as "A acquire 10" or "tick 3": the
// engine's input, as a message is etcd raft's. Who and Verb say who does
// what; of the arguments below, each verb sets the ones its form names, and
// each argument means one thing only. When is "on" or "off" for an action
// played in one switch position only. Line and Source say where the action
// was written, so that a mistake can be reported where it is.
type Action struct {
	Who  string // a client or a node ("all" for every node); "" for tick
	Verb Verb

	Forward  int      // tick: how far the clock moves, in the scenario's unit
	Lease    int      // acquire, renew: the lease in ticks (below 1 counts as 1)
	Key      string   // the Redis key, or the consensus lock's path
	NX       bool     // set: only if the key does not exist
	PX       int      // set, extend, redlock, rlock, rtrylock, rrenew: the TTL in ms; 0 for none
	Seconds  int      // expire: the TTL in seconds
	Replicas int      // wait: how many replicas must acknowledge
	Timeout  int      // wait: ms to block; 0 blocks until they do
	Jump     int      // jump, slew: how far the node's wall clock moves, in ms
	Rate     int      // slew: the most the clock's rate changes, in ppm
	Retries  int      // redlock: how many new attempts after a failed one
	Value    string   // write: what it writes
	Nodes    []string // cut: the nodes cut off
	SQL      string   // sql: the statement, "$col" standing for what the client last read, "$token" for its token
	Conn     int      // sql: which of the client's own connections, from 1; 0 is the first
	TTL      int      // session: the session timeout or lease TTL asked for, ms
	Delay    int      // session: Consul's lock-delay, ms
	Herd     bool     // lock: every waiter watches the parent (ZooKeeper)

	When   string // "", "on" or "off"
	Line   int
	Source string // the action as written
}

func (a Action) String() string { return a.Source }

// playsWhen reports whether a is played with the switch on or off.
func (a Action) playsWhen(on bool) bool {
	return a.When == "" || a.When == "on" && on || a.When == "off" && !on
}

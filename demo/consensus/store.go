package consensus

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// The consensus services: ZooKeeper, etcd and Consul. Each keeps its data on
// a replicated log that a majority agrees on, so every client sees one order
// of events and a counter that only grows (ZooKeeper's zxid, etcd's
// revision, Consul's raft index). What lends the lock is a session (a lease
// in etcd's words) that the client's library keeps alive in the background;
// when the keep-alives stop for longer than its timeout, the service ends
// the session and deletes what it owned, which frees the lock. The service
// is modelled as one process whose agreement is assumed: the lesson is about
// the client, which can be paused while the service moves on without it.

// ZooKeeper's tickTime as its sample config ships it. A session timeout is
// negotiated into [2, 20] tickTime.
const zkTickTime = 2000

// etcd raises a lease TTL below its minimum, 1.5 election timeouts rounded
// up to whole seconds: 2 s with the default 1000 ms election timeout.
const etcdMinTTL = 2000

// Consul takes session TTLs from 10 s and ends a session only after twice its
// TTL without a renewal; its api package renews every TTL/2.
const consulMinTTL = 10000

// session is one client's session (ZooKeeper, Consul) or lease (etcd).
type session struct {
	client    string
	who       int // the client's place among the run's clients, for a renamed key
	id        string
	ttl       int // negotiated, ms
	every     int // the library's keep-alive period, ms: ttl/per
	per       int // keep-alives per timeout: 3 (ZooKeeper, etcd) or 2 (Consul)
	lockDelay int // Consul: how long the lock stays reserved after the session ends
	start     int
	beat      int    // the last keep-alive the service heard
	deadline  int    // when the service ends the session unless it hears again
	ended     int    // when the service ended it; -1 while alive
	known     string // what the client knows of its session (setKnown)
	knownKey  byte   // 1 + known's place among knownWords; 0 for another
	mine      string // the lock node or key this client created (setMine)
	waitOn    string // what its watch waits on; "" when it waits on nothing (setWaitOn)
	mineKey   uint64 // pathKey(mine)
	waitKey   uint64 // pathKey(waitOn)
	herd      bool   // it watches the parent's children, not its predecessor
	fixed     uint64 // fixedKey, worked out when the session opens
	place     int    // its place in the service's sessions, which are only added
	nth       int    // how many of its client's sessions were opened before it
}

// life is how long the service waits after the last keep-alive.
func (s *session) life(kind demo.StoreKind) int {
	if kind == ConsulStore {
		return 2 * s.ttl
	}
	return s.ttl
}

// znode is a znode, an etcd key or a Consul key: one shape serves all three.
type znode struct {
	path       string
	key        uint64   // pathKey(path), set by newZnode
	zxid       int64    // czxid, create revision, or Consul's CreateIndex
	owner      *session // ephemeral owner, lease, or Consul lock session; nil for none
	ephemeral  bool
	lockIndex  int64 // Consul: acquisitions so far
	delayUntil int   // Consul: no acquisition before this (lock-delay)
}

// watch is a one-shot watch: it fires once and is gone.
type watch struct {
	client   string
	path     string
	key      uint64 // pathKey(path)
	children bool   // ZooKeeper's child watch (ls -w), not a watch on the node itself
}

func newWatch(client, path string, children bool) watch {
	return watch{client: client, path: path, key: pathKey(path), children: children}
}

// watchOn is a watch on the znode z itself, with the number z has already.
func watchOn(client string, z *znode) watch {
	return watch{client: client, path: z.path, key: z.key}
}

// service plays ZooKeeper, etcd or Consul, by its kind.
type service struct {
	kind     demo.StoreKind
	scenario string
	zxid     int64 // the counter that only grows
	sessions []*session
	entries  znodes
	cversion counts // ZooKeeper: a parent's child version, which numbers sequential nodes
	watches  []watch
	notified int      // watch notifications delivered
	reads    int      // getChildren (or prefix Get) reads
	spare    []*znode // CopyInto: znodes of an earlier copy, to reuse
}

func newService(sc *demo.Scenario) *service {
	s := &service{kind: sc.Store, scenario: sc.RandomSeed()}
	if s.kind == EtcdStore {
		s.zxid = 1 // a fresh etcd's revision
	}
	return s
}

func (s *service) sessionOf(client string) *session {
	for i := len(s.sessions) - 1; i >= 0; i-- {
		if s.sessions[i].client == client {
			return s.sessions[i]
		}
	}
	return nil
}

// sessionID makes a session or lease id from the scenario and the client, so
// that it is the same in every run: ZooKeeper and etcd print 16 hex digits,
// Consul a UUID.
func (s *service) sessionID(client string) string {
	h := fnv.New64a()
	h.Write([]byte(s.scenario + "/" + client))
	v := h.Sum64() &^ (1 << 63)
	switch s.kind {
	case ZooKeeperStore:
		return fmt.Sprintf("0x%016x", v)
	case ConsulStore:
		x := fmt.Sprintf("%016x%016x", v, v^0x9e3779b97f4a7c15)
		return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
	}
	return fmt.Sprintf("%x", v)
}

func (s *service) call(r *demo.Run, c *demo.Client, op Op) Call {
	return Call{Head: r.Head(c.Name, ""), Store: s.kind, Op: op}
}

func (s *service) Do(r *demo.Run, a demo.Action) error {
	c := r.Client(a.Who)
	ss := s.sessionOf(c.Name)
	alive := ss != nil && ss.ended < 0
	switch {
	case a.Verb == Session:
		return s.open(r, c, a)
	case a.Verb == Create && s.kind == ZooKeeperStore:
		s.createNode(r, c, a.Args.(PathArgs).Path, nil)
	case ss == nil:
		return &demo.ActionError{Action: a, Msg: c.Name + " has no session: open one first"}
	case a.Verb == Lock:
		if !alive {
			return &demo.ActionError{Action: a, Msg: c.Name + "'s session has ended: it must reconnect first"}
		}
		if ss.mine != "" {
			return &demo.ActionError{Action: a, Msg: c.Name + " is already in the queue for the lock"}
		}
		s.lock(r, c, ss, a.Args.(LockArgs))
	case a.Verb == Unlock && s.kind == ZooKeeperStore && ss.mine == "":
		// Curator's release() throws before it sends anything when the
		// client has no lock node of its own.
		return &demo.ActionError{Action: a,
			Msg: c.Name + " has no lock node: Curator's release() throws IllegalMonitorStateException and sends nothing",
			JA:  c.Name + " にはロックのノードが無い: Curator の release() は何も送らずに IllegalMonitorStateException を投げる"}
	case a.Verb == Unlock:
		s.unlock(r, c, ss, a)
	case a.Verb == Reconnect:
		s.reconnect(r, c, ss)
	default:
		return &demo.ActionError{Action: a, Msg: fmt.Sprintf("the %s store does not %s", s.kind, a.Verb)}
	}
	return nil
}

// open starts c's session, with the timeout the service agrees to.
func (s *service) open(r *demo.Run, c *demo.Client, a demo.Action) error {
	sa := a.Args.(SessionArgs)
	ss := &session{client: c.Name, id: s.sessionID(c.Name), ttl: sa.TTL, start: r.Now(), ended: -1}
	ss.who = slices.IndexFunc(r.Clients(), func(o demo.Client) bool { return o.Name == c.Name })
	e := s.call(r, c, OpSession)
	switch s.kind {
	case ZooKeeperStore:
		ss.ttl = min(max(sa.TTL, 2*zkTickTime), 20*zkTickTime)
		ss.per = 3 // the client pings when idle for a third of the timeout
		ss.setKnown("CONNECTED")
		s.zxid++ // createSession is a transaction of its own
	case EtcdStore:
		if sa.TTL%1000 != 0 {
			return &demo.ActionError{Action: a, Msg: "etcd lease TTLs are whole seconds"}
		}
		ss.ttl = max(sa.TTL, etcdMinTTL)
		ss.per = 3 // clientv3's KeepAlive sends every TTL/3
		ss.setKnown("keep-alive")
	case ConsulStore:
		if sa.TTL%1000 != 0 || sa.Delay%1000 != 0 {
			return &demo.ActionError{Action: a, Msg: "Consul takes the TTL and the lock-delay in whole seconds here"}
		}
		ss.ttl = max(sa.TTL, consulMinTTL)
		ss.per = 2
		ss.lockDelay = sa.Delay
		ss.setKnown("valid")
		s.zxid++
	}
	ss.every = ss.ttl / ss.per
	ss.fixed = ss.fixedKey()
	ss.beat, ss.deadline = r.Now(), r.Now()+ss.life(s.kind)
	ss.place = len(s.sessions)
	for _, o := range s.sessions {
		if o.who == ss.who {
			ss.nth++
		}
	}
	s.sessions = append(s.sessions, ss)
	e.Session, e.Asked, e.TTL, e.Delay, e.Zxid, e.OK = ss.id, sa.TTL, ss.ttl, ss.lockDelay, s.zxid, true
	demo.Note(r, e)
	return nil
}

// createNode creates a persistent znode at path, or for ss an ephemeral
// sequential one named lock- in the directory path (the lock recipe's), and
// says so on the wire.
func (s *service) createNode(r *demo.Run, c *demo.Client, path string, ss *session) *znode {
	e := s.call(r, c, OpCreate)
	e.Path = path
	parent := parentOf(path)
	if ss != nil {
		dir := strings.TrimSuffix(path, "/")
		if parent = dir; parent == "" {
			parent = "/"
		}
		if r.Logs() {
			e.Path = dir + lockPrefix
		}
		path = sequential(dir, s.cversion.get(parent))
		e.Sequential = true
	}
	if s.entries.get(path) != nil {
		e.Created = ""
		demo.Note(r, e)
		return nil
	}
	s.zxid++
	n := s.newZnode(znode{path: path, zxid: s.zxid, owner: ss, ephemeral: ss != nil})
	s.entries.put(n)
	s.cversion.inc(parent)
	e.Created, e.Zxid, e.OK = path, n.zxid, true
	demo.Note(r, e)
	s.fire(r, []string{parent}, nil)
	return n
}

// lock is the recipe each service's library runs for Lock().
func (s *service) lock(r *demo.Run, c *demo.Client, ss *session, a LockArgs) {
	switch s.kind {
	case ZooKeeperStore:
		ss.herd = a.Herd
		n := s.createNode(r, c, a.Path, ss)
		ss.setMineNode(n)
		s.zkCheck(r, c, ss)
	case EtcdStore:
		// concurrency.Mutex: one Txn that creates our key under the session's
		// lease unless it exists, and reads the prefix's oldest key.
		e := s.call(r, c, OpTxnLock)
		key := a.Path + ss.id
		e.Path, e.Session = key, ss.id
		s.zxid++
		s.entries.put(s.newZnode(znode{path: key, zxid: s.zxid, owner: ss, ephemeral: true}))
		ss.setMine(key)
		var queue [8]*znode
		owner := s.under(queue[:0], a.Path)[0]
		e.Zxid, e.Owner, e.OwnerZxid, e.Rev, e.OK = s.zxid, owner.path, owner.zxid, s.zxid, true
		demo.Note(r, e)
		if owner.path == key {
			// The Txn's own read shows our key is the oldest: Lock returns.
			s.grant(r, c, ss, owner.zxid)
			return
		}
		s.etcdCheck(r, c, ss)
	case ConsulStore:
		e := s.call(r, c, OpAcquire)
		e.Path, e.Session = a.Path, ss.id
		k := s.entries.get(a.Path)
		switch {
		case k != nil && k.owner != nil && k.owner.ended < 0:
			e.Owner = k.owner.client
		case k != nil && r.Now() < k.delayUntil:
			e.DelayUntil = k.delayUntil
		default:
			if k == nil {
				k = s.newZnode(znode{path: a.Path})
				s.entries.put(k)
			}
			s.zxid++
			if k.zxid == 0 {
				k.zxid = s.zxid
			}
			k.owner, k.delayUntil = ss, 0
			k.lockIndex++
			e.OK, e.Zxid = true, k.lockIndex
		}
		e.Rev = s.zxid
		demo.Note(r, e)
		if e.OK {
			ss.setMine(a.Path)
			s.grant(r, c, ss, k.lockIndex)
		}
	}
}

// under appends to out the entries below prefix, oldest first (lowest
// czxid or create revision), as a lock recipe orders its queue.
func (s *service) under(out []*znode, prefix string) []*znode {
	dir := strings.TrimSuffix(prefix, "/")
	for _, e := range s.entries {
		if p := e.path; strings.HasPrefix(p, prefix) && p != prefix && parentOf(p) == dir {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b *znode) int { return cmp.Compare(a.zxid, b.zxid) })
	return out
}

// zkCheck is the ZooKeeper recipe's loop body: read the children; the lowest
// sequence number holds the lock; anyone else waits on a watch.
func (s *service) zkCheck(r *demo.Run, c *demo.Client, ss *session) {
	parent := parentOf(ss.mine)
	var queue [8]*znode
	kids := s.under(queue[:0], parent+"/")
	var names []string // only for the log: a lean run keeps no event
	at := 0
	for i, k := range kids {
		if r.Logs() {
			names = append(names, k.path[len(parent)+1:])
		}
		if k.path == ss.mine {
			at = i
		}
	}
	sort.Strings(names) // sequence numbers sort as the names do
	e := s.call(r, c, OpChildren)
	e.Path, e.Children, e.Watch, e.OK = parent, names, ss.herd, true
	s.reads++
	if ss.herd {
		s.arm(newWatch(c.Name, parent, true))
		ss.setWaitOn(parent)
	}
	demo.Note(r, e)
	if at == 0 {
		// A child watch left by ls -w stays armed on the server even now
		// that this client holds the lock: it will fire once more, for nothing.
		ss.setWaitOn("")
		s.grant(r, c, ss, s.entries.get(ss.mine).zxid)
		return
	}
	if ss.herd {
		return
	}
	prev := kids[at-1]
	x := s.call(r, c, OpExists)
	x.Path, x.Watch, x.Zxid, x.OK = prev.path, true, prev.zxid, true
	s.arm(watchOn(c.Name, prev))
	ss.setWaitOnNode(prev)
	demo.Note(r, x)
}

// arm sets a watch. ZooKeeper keeps one watch of a kind per path and
// watcher, however often it is set (its WatchManager is a set); an etcd
// client's every Watch call is a stream of its own.
func (s *service) arm(w watch) {
	if s.kind == ZooKeeperStore && slices.Contains(s.watches, w) {
		return
	}
	s.watches = append(s.watches, w)
}

// etcdCheck is concurrency.Mutex after its Txn: the key with the lowest
// create revision holds the lock; anyone else watches for the deletion of
// the newest key older than its own.
func (s *service) etcdCheck(r *demo.Run, c *demo.Client, ss *session) {
	mine := s.entries.get(ss.mine)
	pfx := parentOf(ss.mine) + "/"
	var prev *znode
	var queue [8]*znode
	for _, k := range s.under(queue[:0], pfx) {
		if k.zxid < mine.zxid {
			prev = k
		}
	}
	e := s.call(r, c, OpWaitDeletes)
	e.Path, e.Zxid, e.Rev, e.OK = pfx, mine.zxid-1, s.zxid, true
	s.reads++
	if prev == nil {
		demo.Note(r, e)
		ss.setWaitOn("")
		s.grant(r, c, ss, mine.zxid)
		return
	}
	e.Owner, e.OwnerZxid, e.Watch = prev.path, prev.zxid, true
	s.watches = append(s.watches, watchOn(c.Name, prev))
	ss.setWaitOnNode(prev)
	demo.Note(r, e)
}

// grant is the recipe's conclusion: c holds the lock, with token, for as
// long as its session lasts.
func (s *service) grant(r *demo.Run, c *demo.Client, ss *session, token int64) {
	c.Token = token
	r.Hold(c, ss.deadline)
	demo.Note(r, LockHeld{Head: r.Head(c.Name, ""), Store: s.kind, Path: ss.mine, Token: token, Session: ss.id})
}

// fire delivers the one-shot watches on what changed: a child watch on each
// parent in parents, a node watch on each path in gone. Each watcher that
// runs reacts at once, as a lock recipe does.
func (s *service) fire(r *demo.Run, parents, gone []string) {
	var buf [4]watch
	fired, kept := buf[:0], s.watches[:0] // the watches left, in place, in order
	for _, w := range s.watches {
		hit := w.children && slices.Contains(parents, w.path) || !w.children && slices.Contains(gone, w.path)
		// A crashed client's connection closed, and the server dropped
		// its watches with it: nothing is delivered.
		if c := r.Client(w.client); hit && (c == nil || !c.Crashed) {
			fired = append(fired, w)
		}
		if !hit {
			kept = append(kept, w)
		}
	}
	clear(s.watches[len(kept):])
	s.watches = kept
	for _, w := range fired {
		s.notified++
		typ := "NodeDeleted"
		switch {
		case w.children:
			typ = "NodeChildrenChanged"
		case s.kind == EtcdStore:
			typ = "DELETE"
		}
		demo.Note(r, WatchFired{Head: r.Head(w.client, ""), Store: s.kind, Path: w.path, Type: typ, Rev: s.zxid})
	}
	for _, w := range fired {
		c, ss := r.Client(w.client), s.sessionOf(w.client)
		if c == nil || c.Paused || c.Crashed || ss == nil || ss.ended >= 0 || ss.mine == "" || c.Holds {
			continue // a stopped client reads its notification later; a holder or a client that left ignores it
		}
		switch s.kind {
		case ZooKeeperStore:
			s.zkCheck(r, c, ss)
		case EtcdStore:
			s.etcdCheck(r, c, ss)
		}
	}
}

// remove deletes entries that ended with their owner: the service does it
// in one transaction, which bumps the counter once.
func (s *service) remove(paths []string) {
	for _, p := range paths {
		if z := s.entries.get(p); z != nil {
			s.spare = append(s.spare, z) // nothing points at it once it is gone
		}
		s.entries.del(p)
		s.cversion.inc(parentOf(p))
	}
}

// newZnode is a znode for the service to fill: one an earlier copy or a
// removal left (CopyInto, remove), or a new one.
func (s *service) newZnode(z znode) *znode {
	var c *znode
	if n := len(s.spare); n > 0 {
		c, s.spare = s.spare[n-1], s.spare[:n-1]
	} else {
		c = new(znode)
	}
	*c = z
	c.key = pathKey(z.path)
	return c
}

func (s *service) unlock(r *demo.Run, c *demo.Client, ss *session, a demo.Action) {
	e := s.call(r, c, OpDelete)
	e.Path, e.Session = ss.mine, ss.id
	if s.kind == ConsulStore {
		e.Op, e.Path = OpRelease, a.Args.(PathArgs).Path
		k := s.entries.get(a.Args.(PathArgs).Path)
		if k != nil && k.owner == ss && ss.ended < 0 {
			k.owner = nil
			s.zxid++
			e.OK = true
		}
		e.Rev = s.zxid
		demo.Note(r, e)
		r.LetGo(c)
		ss.setMine("")
		return
	}
	if n := s.entries.get(ss.mine); n != nil && n.owner == ss {
		// A client's own delete leaves the parent's child version as it
		// was: ZooKeeper numbers sequential nodes by the creates alone
		// (PrepRequestProcessor bumps cversion on create, not on delete).
		s.zxid++
		s.entries.del(ss.mine)
		s.spare = append(s.spare, n) // nothing points at it once it is gone
		e.OK = true
	}
	e.Rev = s.zxid
	demo.Note(r, e)
	r.LetGo(c)
	mine := ss.mine
	ss.setMine("")
	ss.setWaitOn("")
	if e.OK {
		s.fire(r, []string{parentOf(mine)}, []string{mine})
	}
}

// reconnect is the client hearing from the service again after a silence:
// only now does its library learn whether its session outlived the silence.
func (s *service) reconnect(r *demo.Run, c *demo.Client, ss *session) {
	e := s.call(r, c, OpReconnect)
	e.Session, e.OK = ss.id, ss.ended < 0
	if ss.ended >= 0 {
		switch s.kind {
		case ZooKeeperStore:
			ss.setKnown("LOST") // Curator: SUSPENDED when the connection dropped, LOST when the server says Expired
		case EtcdStore:
			ss.setKnown("Done()")
		case ConsulStore:
			ss.setKnown("invalidated")
		}
		r.LetGo(c)
		ss.setMine("")
		ss.setWaitOn("")
	}
	e.Known = ss.known
	demo.Note(r, e)
}

// elapse plays the keep-alives of every running client and ends each session
// whose client fell silent for longer than the service waits.
func (s *service) Elapse(r *demo.Run, since int) {
	var buf [8]*session
	due := buf[:0]
	for _, ss := range s.sessions {
		if ss.ended >= 0 {
			continue
		}
		c := &r.Clients()[ss.who] // by its place: a look by name was a tenth of Elapse
		if !c.Paused && !c.Crashed {
			// The k-th keep-alive goes at k*ttl/per, so every per-th one
			// falls on a whole timeout.
			k := (r.Now() - ss.start) * ss.per / ss.ttl
			if last := ss.start + k*ss.ttl/ss.per; last > ss.beat {
				ss.beat, ss.deadline = last, last+ss.life(s.kind)
				if c.Holds && ss.mine != "" {
					r.ExtendHold(c, ss.deadline)
				}
			}
			continue
		}
		if ss.deadline <= r.Now() {
			due = append(due, ss)
		}
	}
	slices.SortStableFunc(due, func(a, b *session) int {
		if c := cmp.Compare(a.deadline, b.deadline); c != 0 || s.kind != ZooKeeperStore {
			return c
		}
		// ZooKeeper's sessions that end at one instant end in the order
		// of their lock nodes, the queue's, whoever their clients are
		// (Renames); one without a node owns nothing, so its place among
		// them changes nothing.
		return strings.Compare(a.mine, b.mine)
	})
	for _, ss := range due {
		// What follows happened at the deadline, not when anyone looked.
		r.AsOf(ss.deadline, func() { s.end(r, ss) })
	}
}

// end is the service ending ss: the ephemeral nodes or leased keys go in one
// transaction, the watches on them fire, and Consul keeps the lock reserved
// for the lock-delay.
func (s *service) end(r *demo.Run, ss *session) {
	ss.ended = r.Now()
	var buf [4]string
	gone := buf[:0]
	for _, n := range s.entries { // in the order of their paths
		if n.owner == ss {
			gone = append(gone, n.path)
		}
	}
	if s.kind != EtcdStore || len(gone) > 0 {
		s.zxid++ // etcd's revision moves only when a key goes
	}
	e := SessionEnded{Head: r.Head(ss.client, ""), Store: s.kind, Session: ss.id, Rev: s.zxid}
	c := r.Client(ss.client)
	if s.kind == ConsulStore {
		for _, p := range gone {
			k := s.entries.get(p)
			k.owner = nil
			if ss.lockDelay > 0 {
				k.delayUntil = r.Now() + ss.lockDelay
				e.DelayUntil = k.delayUntil
			}
		}
		if r.Logs() && len(gone) > 0 {
			e.Released = slices.Clone(gone)
		}
		if c.Holds && ss.lockDelay > 0 {
			// Nobody else can take the lock before the delay is over: for
			// that long it is still, in effect, the old holder's.
			r.ExtendHold(c, e.DelayUntil)
		}
		demo.Note(r, e)
		return
	}
	if r.Logs() && len(gone) > 0 {
		e.Deleted = slices.Clone(gone)
	}
	s.remove(gone)
	demo.Note(r, e)
	var pbuf [4]string
	parents := pbuf[:0]
	for _, p := range gone {
		parents = append(parents, parentOf(p))
	}
	s.fire(r, parents, gone)
}

// forever is always "": every session ends once its client falls silent.
func (s *service) Forever(*demo.Run) string { return "" }

func (s *service) State(r *demo.Run) any {
	st := State{Kind: s.kind, Zxid: s.zxid, Notified: s.notified, Reads: s.reads}
	if s.kind == ZooKeeperStore {
		st.TickTime = zkTickTime
	}
	for _, ss := range s.sessions {
		st.Sessions = append(st.Sessions, SessionState{
			Client: ss.client, ID: ss.id, TTL: ss.ttl, Every: ss.every, LockDelay: ss.lockDelay,
			Beat: ss.beat, Deadline: ss.deadline, Ended: ss.ended, Known: ss.known, WaitOn: ss.waitOn,
		})
	}
	for _, n := range s.entries {
		es := EntryState{Path: n.path, Zxid: n.zxid, Ephemeral: n.ephemeral, LockIndex: n.lockIndex}
		if n.owner != nil {
			es.Owner, es.Session = n.owner.client, n.owner.id
		}
		if n.delayUntil > r.Now() {
			es.DelayUntil = n.delayUntil
		}
		st.Entries = append(st.Entries, es)
	}
	for _, w := range s.watches {
		st.Watches = append(st.Watches, WatchState{Client: w.client, Path: w.path, Children: w.children})
	}
	return st
}

func parentOf(path string) string {
	path = strings.TrimSuffix(path, "/")
	if i := strings.LastIndexByte(path, '/'); i > 0 {
		return path[:i]
	}
	return "/"
}

// State is a consensus service as a frame shows it.
type State struct {
	Kind     demo.StoreKind
	Zxid     int64 // the last zxid, revision or raft index
	TickTime int   // ZooKeeper's tickTime, ms
	Sessions []SessionState
	Entries  []EntryState // znodes or keys, by path
	Watches  []WatchState // armed, not yet fired
	Notified int          // watch notifications delivered so far
	Reads    int          // getChildren or prefix reads so far
}

// SessionState is one session or lease, as the service and the client's
// library see it.
type SessionState struct {
	Client, ID string
	TTL        int // negotiated, ms
	Every      int // keep-alive period, ms
	LockDelay  int
	Beat       int // last keep-alive heard
	Deadline   int // when the service ends it without another keep-alive
	Ended      int // when the service ended it; -1 alive
	Known      string
	WaitOn     string
}

// EntryState is a znode or a key.
type EntryState struct {
	Path       string
	Zxid       int64 // czxid or create revision
	Owner      string
	Session    string
	Ephemeral  bool
	LockIndex  int64
	DelayUntil int // Consul: lock-delay in force until; 0 none
}

// WatchState is an armed one-shot watch.
type WatchState struct {
	Client, Path string
	Children     bool
}

// lockPrefix is the name of the lock recipe's nodes, before their number.
const lockPrefix = "/lock-"

// sequential is the lock recipe's node in the directory dir, lock- with
// ZooKeeper's ten-digit sequence number n, written in one allocation
// without fmt: the finder creates a node for many of the steps it tries.
func sequential(dir string, n int) string {
	var buf [64]byte
	b := append(append(buf[:0], dir...), lockPrefix...)
	var d [10]byte
	for i := len(d) - 1; i >= 0; i-- {
		d[i], n = byte('0'+n%10), n/10
	}
	return string(append(b, d[:]...))
}

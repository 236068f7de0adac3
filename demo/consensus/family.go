// Package consensus is the family of the consensus services: ZooKeeper,
// etcd and Consul, each with its sessions (leases in etcd's words), its
// counter that only grows (zxid, revision, raft index), and its client
// library's lock recipe. The service is modelled as one process whose
// agreement is assumed: the lesson is about the client, which can be paused
// while the service moves on without it.
package consensus

import (
	"errors"
	"fmt"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// The family's kinds of store.
const (
	ZooKeeperStore demo.StoreKind = "zookeeper" // znodes and sessions
	EtcdStore      demo.StoreKind = "etcd"      // keys, revisions and leases
	ConsulStore    demo.StoreKind = "consul"    // sessions with a lock-delay
)

// The family's event kinds.
const (
	SessionOpened demo.Kind = "session"       // Call: a session or lease
	NodeCreated   demo.Kind = "created"       // Call: a znode or key made
	ChildrenRead  demo.Kind = "read"          // Call: getChildren, exists, or a Get that leaves a watch
	NodeDeleted   demo.Kind = "deleted"       // Call: a delete or release
	KVAcquired    demo.Kind = "kv-acquired"   // Call: Consul's acquire, true
	KVRefused     demo.Kind = "kv-refused"    // Call: Consul's acquire, false
	SessionAlive  demo.Kind = "session-alive" // Call: reconnected to a live session
	SessionLost   demo.Kind = "session-lost"  // Call: reconnected and learned the session had ended
	LockGranted   demo.Kind = "lock-held"     // LockHeld
	WatchFire     demo.Kind = "watch-fired"   // WatchFired
	SessionEnd    demo.Kind = "session-ended" // SessionEnded
)

// The family's verbs.
const (
	Session   demo.Verb = "session"
	Create    demo.Verb = "create"
	Lock      demo.Verb = "lock"
	Unlock    demo.Verb = "unlock"
	Reconnect demo.Verb = "reconnect"
)

// Verbs is the family's verb table.
var Verbs = []demo.VerbSpec{
	{Verb: Session, Form: "MS [delay MS]", Help: "open a session (lease) with that timeout; Consul's lock-delay", Parse: parseSession},
	{Verb: Create, Form: "/PATH", Help: "a persistent znode", Kinds: []demo.StoreKind{ZooKeeperStore}, Parse: parseCreate},
	{Verb: Lock, Form: "PATH [herd]", Help: "the service's lock recipe; herd watches the parent", Parse: parseLock},
	{Verb: Unlock, Form: "KEY", Help: "the recipe's unlock: delete the lock node, or release the key", Parse: parsePath},
	{Verb: Reconnect, Help: "the client hears from the service after a silence"},
}

// Family is the consensus services' entry in the registry.
var Family = &demo.Family{
	Name:   "consensus",
	Kinds:  []demo.StoreKind{ZooKeeperStore, EtcdStore, ConsulStore},
	Unit:   "ms",
	Verbs:  Verbs,
	New:    func(sc *demo.Scenario) demo.Store { return newService(sc) },
	Offers: offers,
	Lanes: func(sc *demo.Scenario) []demo.Lane {
		return []demo.Lane{{Key: "", Word: "coord.lane." + string(sc.Store)}}
	},
	Transcript: func(b *strings.Builder, f *demo.Frame) bool {
		transcript(b, f.Scenario, f.Store.(State))
		return false
	},
}

// Of returns the consensus service's state in f, if f has one.
func Of(f demo.Frame) (State, bool) {
	s, ok := f.Store.(State)
	return s, ok
}

// The verbs' arguments.
type (
	// SessionArgs: the session timeout or lease TTL asked for, and Consul's
	// lock-delay, in ms.
	SessionArgs struct{ TTL, Delay int }
	// PathArgs: a znode's path or a key.
	PathArgs struct{ Path string }
	// LockArgs: the lock's path, and whether every waiter watches the
	// parent (ZooKeeper's herd).
	LockArgs struct {
		Path string
		Herd bool
	}
)

func parseSession(w []string) (any, error) {
	if len(w) != 1 && (len(w) != 3 || w[1] != "delay") {
		return nil, errors.New(`want "MS [delay MS]"`)
	}
	var a SessionArgs
	var err error
	if a.TTL, err = demo.Number(w[0], "session timeout"); err == nil && a.TTL == 0 {
		err = errors.New("the session timeout must be at least 1 ms")
	}
	if err == nil && len(w) == 3 {
		a.Delay, err = demo.Number(w[2], "lock-delay")
	}
	return a, err
}

func parseCreate(w []string) (any, error) {
	if len(w) != 1 || !strings.HasPrefix(w[0], "/") {
		return nil, errors.New(`want "/PATH"`)
	}
	return PathArgs{w[0]}, nil
}

func parsePath(w []string) (any, error) {
	if len(w) != 1 {
		return nil, errors.New(`want "KEY"`)
	}
	return PathArgs{w[0]}, nil
}

func parseLock(w []string) (any, error) {
	if len(w) < 1 || len(w) > 2 || len(w) == 2 && w[1] != "herd" {
		return nil, errors.New(`want "PATH [herd]"`)
	}
	return LockArgs{Path: w[0], Herd: len(w) == 2}, nil
}

// What the events draw: the lock on the service's one lane, from the
// recipe's grant to the delete or the session's end.

func (e LockHeld) Draw(d *demo.Drawing) { d.Start("", e.Client, e.At, e.Token, -1) }

func (e Call) Draw(d *demo.Drawing) {
	if (e.Op == OpDelete || e.Op == OpRelease) && e.OK {
		d.Stop("", e.Client, e.At)
	}
}

func (e SessionEnded) Draw(d *demo.Drawing) {
	d.Stop("", e.Client, e.At)
	d.Mark(demo.Mark{Lane: "", At: e.At, What: "expiry"})
}

// What the transcripts add: the counter a call left behind, the happenings
// no client sent, and the service's state.

func (e Call) Note(*demo.Scenario) string {
	switch {
	case e.Op == OpCreate && e.Created != "":
		return fmt.Sprintf(", czxid 0x%x", e.Zxid)
	case e.Op == OpSession && e.Store == ZooKeeperStore:
		return fmt.Sprintf(" (asked %d ms; negotiated into [2, 20] tickTime)", e.Asked)
	case e.Op == OpAcquire && e.OK:
		return fmt.Sprintf(", LockIndex %d", e.Zxid)
	case e.Op == OpAcquire && e.DelayUntil > 0:
		return fmt.Sprintf(" (lock-delay until t=%dms)", e.DelayUntil)
	case e.Op == OpAcquire && e.Owner != "":
		return " (held by " + e.Owner + ")"
	case e.Op == OpReconnect:
		return ", the client now reports " + e.Known
	}
	return ""
}

func (e LockHeld) Story(*demo.Scenario) string {
	return fmt.Sprintf("holds the lock (%s), token %d", e.Path, e.Token)
}

func (e WatchFired) Story(*demo.Scenario) string { return e.Notice() }

func (e SessionEnded) Story(sc *demo.Scenario) string {
	s := "session " + e.Session + " ended by the service"
	if e.Store == EtcdStore {
		s = "lease " + e.Session + " expired"
	}
	if len(e.Deleted) > 0 {
		s += fmt.Sprintf(", deleted %s (zxid/revision %d)", strings.Join(e.Deleted, ", "), e.Rev)
	}
	if len(e.Released) > 0 {
		s += ", released " + strings.Join(e.Released, ", ")
	}
	if e.DelayUntil > 0 {
		s += fmt.Sprintf(", lock-delay until %s", demo.Clock(sc, e.DelayUntil))
	}
	return s
}

func transcript(b *strings.Builder, sc *demo.Scenario, st State) {
	counter := map[demo.StoreKind]string{ZooKeeperStore: "zxid", EtcdStore: "revision", ConsulStore: "index"}[st.Kind]
	fmt.Fprintf(b, "  %s: %s %d, notifications %d, reads %d\n", st.Kind, counter, st.Zxid, st.Notified, st.Reads)
	for _, s := range st.Sessions {
		state := fmt.Sprintf("ends %s without a keep-alive", demo.Clock(sc, s.Deadline))
		if s.Ended >= 0 {
			state = "ended at " + demo.Clock(sc, s.Ended)
		}
		wait := ""
		if s.WaitOn != "" {
			wait = ", waits on " + s.WaitOn
		}
		fmt.Fprintf(b, "    session %s %s: ttl %dms, last keep-alive %s, %s; client reports %s%s\n",
			s.Client, s.ID, s.TTL, demo.Clock(sc, s.Beat), state, s.Known, wait)
	}
	for _, e := range st.Entries {
		owner := ""
		if e.Owner != "" {
			owner = " owner " + e.Owner
		}
		extra := ""
		if e.LockIndex > 0 {
			extra += fmt.Sprintf(" LockIndex %d", e.LockIndex)
		}
		if e.DelayUntil > 0 {
			extra += " lock-delay until " + demo.Clock(sc, e.DelayUntil)
		}
		fmt.Fprintf(b, "    %s (created %d%s%s)\n", e.Path, e.Zxid, owner, extra)
	}
	for _, w := range st.Watches {
		kind := "node"
		if w.Children {
			kind = "children"
		}
		fmt.Fprintf(b, "    watch: %s on %s (%s)\n", w.Client, w.Path, kind)
	}
}

// What a narration may say of the family's events.

func (e SessionEnded) Deeds() demo.Deed {
	if len(e.Released) > 0 || len(e.Deleted) > 0 {
		return demo.Unlocked
	}
	return 0
}

func (e Call) Deeds() demo.Deed {
	switch e.Op {
	case OpDelete, OpRelease:
		return demo.Unlocked
	case OpExists, OpWaitDeletes, OpChildren:
		return demo.Waited
	case OpAcquire:
		if e.OK {
			return demo.Asked | demo.Got // Consul's acquire answered true
		}
		return demo.Asked
	case OpCreate, OpTxnLock:
		return demo.Asked
	}
	return 0
}

// A lock recipe that concludes its client holds the lock: the lock taken.
func (LockHeld) Deeds() demo.Deed { return demo.Got }
